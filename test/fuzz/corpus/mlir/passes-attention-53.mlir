func.func @key_batch_broadcast(%q: tensor<2x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<2x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<1x2x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}
