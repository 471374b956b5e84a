func.func @repeat_kv_gather(%q: tensor<2x8x2x40xf32>, %k: tensor<2x2x12x40xf32>,
                            %v: tensor<2x2x12x40xf32>) -> tensor<2x8x2x40xf32> {
  %heads = poot.constant dense<[0, 0, 0, 0, 1, 1, 1, 1]> : tensor<8xi32>
  %kr = poot.gather %k[%heads] {axis = 1 : i64} : tensor<2x2x12x40xf32>, tensor<8xi32>
  %vr = poot.gather %v[%heads] {axis = 1 : i64} : tensor<2x2x12x40xf32>, tensor<8xi32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x12x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x2x40xf32>, tensor<2x8x40x12xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x2x12xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x8x2x12xf32>
  %d = poot.sub %ss, %m : tensor<2x8x2x12xf32>, tensor<2x8x2x1xf32>
  %e = poot.exp %d : tensor<2x8x2x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x2x12xf32>
  %p = poot.div %e, %z : tensor<2x8x2x12xf32>, tensor<2x8x2x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x2x12xf32>, tensor<2x8x12x40xf32>
  return %o : tensor<2x8x2x40xf32>
}
