func.func @transpose_score_chain_shared(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x8x16xf32>) -> (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) {
  %qt = poot.transpose %q {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x3x16xf32>
  %s = poot.matmul %k, %qt : tensor<1x2x8x16xf32>, tensor<1x2x16x3xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %d = poot.sub %s, %m : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %e = poot.exp %d : tensor<1x2x8x3xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %p = poot.div %e, %z : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x3xf32>
  return %pt, %e : tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>
}
