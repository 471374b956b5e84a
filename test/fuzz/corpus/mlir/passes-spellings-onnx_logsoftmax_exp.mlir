func.func @onnx_logsoftmax_exp(%q: tensor<2x3x4x32xf32>, %k: tensor<2x3x7x32xf32>,
                               %v: tensor<2x3x7x32xf32>, %bias: tensor<2x1x1x7xf32>)
    -> tensor<2x3x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x7x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x3x4x32xf32>, tensor<2x3x32x7xf32>
  %sq = poot.constant dense<5.65685415> : tensor<f32>
  %ss = poot.div %s, %sq : tensor<2x3x4x7xf32>, tensor<f32>
  %x = poot.add %ss, %bias : tensor<2x3x4x7xf32>, tensor<2x1x1x7xf32>
  %rmax = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %xsub = poot.sub %x, %rmax : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %xexp = poot.exp %xsub : tensor<2x3x4x7xf32>
  %rsum = poot.reduce_sum %xexp {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %xlog = poot.log %rsum : tensor<2x3x4x1xf32>
  %y = poot.sub %xsub, %xlog : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %p = poot.exp %y : tensor<2x3x4x7xf32>
  %o = poot.matmul %p, %v : tensor<2x3x4x7xf32>, tensor<2x3x7x32xf32>
  return %o : tensor<2x3x4x32xf32>
}
