func.func @nm_lse_sum_query_axis(%q: tensor<1x2x5x16xf32>, %k: tensor<1x2x5x16xf32>,
                                 %v: tensor<1x2x5x16xf32>) -> tensor<1x2x5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %shifted = poot.sub %s, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %shifted : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x2x5x5xf32>
  %l = poot.log %z : tensor<1x2x1x5xf32>
  %ls = poot.sub %shifted, %l : tensor<1x2x5x5xf32>, tensor<1x2x1x5xf32>
  %p = poot.exp %ls : tensor<1x2x5x5xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  return %o : tensor<1x2x5x16xf32>
}
