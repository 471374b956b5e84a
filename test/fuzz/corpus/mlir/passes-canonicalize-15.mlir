func.func @transpose_score_chain(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x8x16xf32>, %mask: tensor<1x1x8x3xf32>) -> tensor<1x2x3x8xf32> {
  %qt = poot.transpose %q {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x3x16xf32>
  %s = poot.matmul %k, %qt : tensor<1x2x8x16xf32>, tensor<1x2x16x3xf32>
  %sm = poot.add %s, %mask : tensor<1x2x8x3xf32>, tensor<1x1x8x3xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %d = poot.sub %sm, %m : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %e = poot.exp %d : tensor<1x2x8x3xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %p = poot.div %e, %z : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x3xf32>
  return %pt : tensor<1x2x3x8xf32>
}
