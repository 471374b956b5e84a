func.func @nm_negative_scale_after_max(%q: tensor<1x2x2x16xf32>, %k: tensor<1x2x6x16xf32>,
                                       %v: tensor<1x2x6x16xf32>) -> tensor<1x2x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x2x16xf32>, tensor<1x2x16x6xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x2x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x2x6xf32>, tensor<1x2x2x1xf32>
  %c = poot.constant dense<-0.25> : tensor<f32>
  %ds = poot.mul %d, %c : tensor<1x2x2x6xf32>, tensor<f32>
  %e = poot.exp %ds : tensor<1x2x2x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x2x6xf32>
  %p = poot.div %e, %z : tensor<1x2x2x6xf32>, tensor<1x2x2x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x2x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x2x16xf32>
}
