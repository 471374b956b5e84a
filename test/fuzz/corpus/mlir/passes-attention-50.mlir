func.func @grouped_5d_broadcast(%q: tensor<1x6x4x40xf32>, %k: tensor<1x2x6x40xf32>, %v: tensor<1x2x6x40xf32>) -> tensor<1x6x4x40xf32> {
  %qg = poot.reshape %q : tensor<1x6x4x40xf32> -> tensor<1x2x3x4x40xf32>
  %kg = poot.reshape %k : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %kb = poot.broadcast %kg {shape = array<i64: 1, 2, 3, 6, 40>} : tensor<1x2x1x6x40xf32>
  %kt = poot.transpose %kb {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x3x6x40xf32>
  %s = poot.matmul %qg, %kt : tensor<1x2x3x4x40xf32>, tensor<1x2x3x40x6xf32>
  %m = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4x6xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %vg = poot.reshape %v : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %vb = poot.broadcast %vg {shape = array<i64: 1, 2, 3, 6, 40>} : tensor<1x2x1x6x40xf32>
  %o = poot.matmul %p, %vb : tensor<1x2x3x4x6xf32>, tensor<1x2x3x6x40xf32>
  %r = poot.reshape %o : tensor<1x2x3x4x40xf32> -> tensor<1x6x4x40xf32>
  return %r : tensor<1x6x4x40xf32>
}
