func.func @mqa(%q: tensor<1x4x1x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xf32>, tensor<1x1x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x1x8xf32>, tensor<1x1x8x16xf32>
  return %o : tensor<1x4x1x16xf32>
}
