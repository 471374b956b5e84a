func.func @softmax_pow(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>,
                       %v: tensor<2x2x16x64xf32>) -> tensor<2x8x1x64xf32> {
  %k5 = poot.reshape %k : tensor<2x2x16x64xf32> -> tensor<2x2x1x16x64xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 16, 64>} : tensor<2x2x1x16x64xf32>
  %kr = poot.reshape %kb : tensor<2x2x4x16x64xf32> -> tensor<2x8x16x64xf32>
  %v5 = poot.reshape %v : tensor<2x2x16x64xf32> -> tensor<2x2x1x16x64xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 16, 64>} : tensor<2x2x1x16x64xf32>
  %vr = poot.reshape %vb : tensor<2x2x4x16x64xf32> -> tensor<2x8x16x64xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x16x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x1x64xf32>, tensor<2x8x64x16xf32>
  %dk = poot.constant dense<64.0> : tensor<f32>
  %c = poot.rsqrt %dk : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x1x16xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %d = poot.sub %ss, %m : tensor<2x8x1x16xf32>, tensor<2x8x1x1xf32>
  %e = poot.exp %d : tensor<2x8x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %neg1 = poot.constant dense<-1.0> : tensor<f32>
  %r = poot.pow %z, %neg1 : tensor<2x8x1x1xf32>, tensor<f32>
  %p = poot.mul %r, %e : tensor<2x8x1x1xf32>, tensor<2x8x1x16xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x1x16xf32>, tensor<2x8x16x64xf32>
  return %o : tensor<2x8x1x64xf32>
}
