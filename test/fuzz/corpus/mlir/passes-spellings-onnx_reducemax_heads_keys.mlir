func.func @onnx_reducemax_heads_keys(%q: tensor<2x3x4x32xf32>, %k: tensor<2x3x4x32xf32>,
                                     %v: tensor<2x3x4x32xf32>) -> tensor<2x3x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x4x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x3x4x32xf32>, tensor<2x3x32x4xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x3x4x4xf32>, tensor<f32>
  %tril = poot.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000],
                               [0.0, 0.0, 0xFF800000, 0xFF800000],
                               [0.0, 0.0, 0.0, 0xFF800000],
                               [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %x = poot.add %ss, %tril : tensor<2x3x4x4xf32>, tensor<4x4xf32>
  %mh = poot.reduce_max %x {axis = 1 : i64, keepdim} : tensor<2x3x4x4xf32>
  %m = poot.reduce_max %mh {axis = 3 : i64, keepdim} : tensor<2x1x4x4xf32>
  %d = poot.sub %x, %m : tensor<2x3x4x4xf32>, tensor<2x1x4x1xf32>
  %e = poot.exp %d : tensor<2x3x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x4x4xf32>
  %p = poot.div %e, %z : tensor<2x3x4x4xf32>, tensor<2x3x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x4x4xf32>, tensor<2x3x4x32xf32>
  return %o : tensor<2x3x4x32xf32>
}
