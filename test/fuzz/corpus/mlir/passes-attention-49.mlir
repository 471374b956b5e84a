func.func @grouped_5d(%q: tensor<1x2x3x4x40xf32>, %k: tensor<1x2x6x40xf32>, %v: tensor<1x2x6x40xf32>) -> tensor<1x2x3x4x40xf32> {
  %kg = poot.reshape %k : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %kt = poot.transpose %kg {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x6x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x4x40xf32>, tensor<1x2x1x40x6xf32>
  %m = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4x6xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %vg = poot.reshape %v : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %o = poot.matmul %p, %vg : tensor<1x2x3x4x6xf32>, tensor<1x2x1x6x40xf32>
  return %o : tensor<1x2x3x4x40xf32>
}
