// A bf16 GQA decode (n_rep 4, D = 96, 300 keys) with an additive mask input,
// for the GPU check of the matrix-tile schedule with a tensor mask.
func.func @gqa_decode_tensor_mask_bf16(%q: tensor<2x8x1x96xbf16>, %k: tensor<2x2x300x96xbf16>,
                        %v: tensor<2x2x300x96xbf16>, %mask: tensor<2x1x1x300xbf16>)
    -> tensor<2x8x1x96xbf16> {
  %k5 = poot.reshape %k : tensor<2x2x300x96xbf16> -> tensor<2x2x1x300x96xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 300, 96>} : tensor<2x2x1x300x96xbf16>
  %kr = poot.reshape %kb : tensor<2x2x4x300x96xbf16> -> tensor<2x8x300x96xbf16>
  %v5 = poot.reshape %v : tensor<2x2x300x96xbf16> -> tensor<2x2x1x300x96xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 300, 96>} : tensor<2x2x1x300x96xbf16>
  %vr = poot.reshape %vb : tensor<2x2x4x300x96xbf16> -> tensor<2x8x300x96xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x300x96xbf16>
  %s = poot.matmul %q, %kt : tensor<2x8x1x96xbf16>, tensor<2x8x96x300xbf16>
  %c = poot.constant dense<0.102062072> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<2x8x1x300xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<2x8x1x300xbf16>, tensor<2x1x1x300xbf16>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x8x1x300xbf16>
  %d = poot.sub %sm, %m : tensor<2x8x1x300xbf16>, tensor<2x8x1x1xbf16>
  %e = poot.exp %d : tensor<2x8x1x300xbf16>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x8x1x300xbf16>
  %p = poot.div %e, %z : tensor<2x8x1x300xbf16>, tensor<2x8x1x1xbf16>
  %o = poot.matmul %p, %vr : tensor<2x8x1x300xbf16>, tensor<2x8x300x96xbf16>
  return %o : tensor<2x8x1x96xbf16>
}
