func.func @mask_selected_before_softcap(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keep: tensor<1x1x1x8xi1>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %s, %ninf : tensor<1x1x1x8xi1>, tensor<1x2x1x8xf32>, tensor<f32>
  %cap = poot.constant dense<3.0e+01> : tensor<f32>
  %s1 = poot.div %sm, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x2x1x8xf32>
  %s3 = poot.mul %s2, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %s3 {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s3, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}
