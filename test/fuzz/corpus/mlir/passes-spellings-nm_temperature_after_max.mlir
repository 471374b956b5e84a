func.func @nm_temperature_after_max(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x5x16xf32>,
                                    %v: tensor<2x2x5x16xf32>, %temp: tensor<1x2x1x1xf32>)
    -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %d = poot.sub %s, %m : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %ds = poot.mul %d, %temp : tensor<2x2x3x5xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %ds : tensor<2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x5xf32>, tensor<2x2x5x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
