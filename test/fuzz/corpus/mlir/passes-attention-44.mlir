func.func @two_softcaps(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %cap = poot.constant dense<3.0e+01> : tensor<f32>
  %a1 = poot.div %s, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %a2 = poot.tanh %a1 : tensor<1x2x1x8xf32>
  %a3 = poot.mul %a2, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %b1 = poot.div %a3, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %b2 = poot.tanh %b1 : tensor<1x2x1x8xf32>
  %b3 = poot.mul %b2, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %b3 {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %b3, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}
