func.func @fp16_softmax_f32(%q: tensor<2x8x2x96xf16>, %k: tensor<2x2x10x96xf16>,
                            %v: tensor<2x2x10x96xf16>) -> tensor<2x8x2x96xf16> {
  %k5 = poot.reshape %k : tensor<2x2x10x96xf16> -> tensor<2x2x1x10x96xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 10, 96>} : tensor<2x2x1x10x96xf16>
  %kr = poot.reshape %kb : tensor<2x2x4x10x96xf16> -> tensor<2x8x10x96xf16>
  %v5 = poot.reshape %v : tensor<2x2x10x96xf16> -> tensor<2x2x1x10x96xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 10, 96>} : tensor<2x2x1x10x96xf16>
  %vr = poot.reshape %vb : tensor<2x2x4x10x96xf16> -> tensor<2x8x10x96xf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x10x96xf16>
  %s = poot.matmul %q, %kt : tensor<2x8x2x96xf16>, tensor<2x8x96x10xf16>
  %c = poot.constant dense<0.1021> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<2x8x2x10xf16>, tensor<f16>
  %s32 = poot.convert %ss : tensor<2x8x2x10xf16> -> tensor<2x8x2x10xf32>
  %m = poot.reduce_max %s32 {axis = 3 : i64, keepdim} : tensor<2x8x2x10xf32>
  %d = poot.sub %s32, %m : tensor<2x8x2x10xf32>, tensor<2x8x2x1xf32>
  %e = poot.exp %d : tensor<2x8x2x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x2x10xf32>
  %p32 = poot.div %e, %z : tensor<2x8x2x10xf32>, tensor<2x8x2x1xf32>
  %p = poot.convert %p32 : tensor<2x8x2x10xf32> -> tensor<2x8x2x10xf16>
  %o = poot.matmul %p, %vr : tensor<2x8x2x10xf16>, tensor<2x8x10x96xf16>
  return %o : tensor<2x8x2x96xf16>
}
