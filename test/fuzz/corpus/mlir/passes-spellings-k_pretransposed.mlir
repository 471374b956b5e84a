func.func @k_pretransposed(%q: tensor<2x4x1x64xf32>, %kt: tensor<2x4x64x32xf32>,
                           %v: tensor<2x4x32x64xf32>) -> tensor<2x4x1x64xf32> {
  %s = poot.matmul %q, %kt : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %c, %s : tensor<f32>, tensor<2x4x1x32xf32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x4x1x32xf32>
  %d = poot.sub %ss, %m : tensor<2x4x1x32xf32>, tensor<2x4x1x1xf32>
  %e = poot.exp %d : tensor<2x4x1x32xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x1x32xf32>
  %p = poot.div %e, %z : tensor<2x4x1x32xf32>, tensor<2x4x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
  return %o : tensor<2x4x1x64xf32>
}
