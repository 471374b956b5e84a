func.func @mask_after_unmasked_max(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x4x16xf32>,
                                   %v: tensor<2x2x4x16xf32>, %keep: tensor<2x1x1x4xi1>)
    -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x4xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x2x3x4xf32>, tensor<f32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x3x4xf32>
  %d = poot.sub %s, %m : tensor<2x2x3x4xf32>, tensor<2x2x3x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %dm = poot.select %keep, %d, %ninf : tensor<2x1x1x4xi1>, tensor<2x2x3x4xf32>, tensor<f32>
  %e = poot.exp %dm : tensor<2x2x3x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x4xf32>
  %p = poot.div %e, %z : tensor<2x2x3x4xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x4xf32>, tensor<2x2x4x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
