func.func @causal_constant_offset(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x3x16xf32> {
  %mask = poot.constant dense<[[0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<3x4xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x4xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x3x4xf32>, tensor<3x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x3x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x3x4xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x4xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x3x16xf32>
}
