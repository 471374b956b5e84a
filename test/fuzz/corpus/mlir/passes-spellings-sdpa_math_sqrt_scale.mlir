func.func @sdpa_math_sqrt_scale(%q: tensor<1x4x5x40xf32>, %k: tensor<1x4x12x40xf32>,
                                %v: tensor<1x4x12x40xf32>) -> tensor<1x4x5x40xf32> {
  %sf = poot.constant dense<0.397635036> : tensor<f32>
  %qs = poot.mul %q, %sf : tensor<1x4x5x40xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x12x40xf32>
  %kts = poot.mul %kt, %sf : tensor<1x4x40x12xf32>, tensor<f32>
  %s = poot.matmul %qs, %kts : tensor<1x4x5x40xf32>, tensor<1x4x40x12xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x5x12xf32>
  %d = poot.sub %s, %m : tensor<1x4x5x12xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x12xf32>
  %p = poot.div %e, %z : tensor<1x4x5x12xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x5x12xf32>, tensor<1x4x12x40xf32>
  return %o : tensor<1x4x5x40xf32>
}
