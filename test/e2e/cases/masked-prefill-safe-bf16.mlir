// A GQA prefill (4 query heads on 2 KV heads, L = 96, D = 64, bf16) with an
// additive [96, 96] mask input under PyTorch's safe softmax (zero where the
// row's max is -inf). sweep.sh binds the mask of masked-prefill-mask.sh:
// rows that hide every key, causal rows, rows that keep only their last
// key, scattered holes. Rows with no visible key are 0 (the fused op's
// zero_empty_rows) on the prefill schedules: on CUDA the tile schedule,
// whose key tiles of such a row are all scored -inf.
func.func @masked_prefill_safe_bf16(%q: tensor<1x4x96x64xbf16> {poot.name = "q"},
                                    %k: tensor<1x2x96x64xbf16> {poot.name = "k"},
                                    %v: tensor<1x2x96x64xbf16> {poot.name = "v"},
                                    %mask: tensor<96x96xbf16> {poot.name = "mask"})
    -> tensor<1x4x96x64xbf16> {
  %k5 = poot.reshape %k : tensor<1x2x96x64xbf16> -> tensor<1x2x1x96x64xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 96, 64>} : tensor<1x2x1x96x64xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x96x64xbf16> -> tensor<1x4x96x64xbf16>
  %v5 = poot.reshape %v : tensor<1x2x96x64xbf16> -> tensor<1x2x1x96x64xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 96, 64>} : tensor<1x2x1x96x64xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x96x64xbf16> -> tensor<1x4x96x64xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x96x64xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x96x64xbf16>, tensor<1x4x64x96xbf16>
  %c = poot.constant dense<0.125> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x4x96x96xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<1x4x96x96xbf16>, tensor<96x96xbf16>
  %x = poot.convert %sm : tensor<1x4x96x96xbf16> -> tensor<1x4x96x96xf32>
  %m = poot.reduce_max %x {axis = -1 : i64, keepdim} : tensor<1x4x96x96xf32>
  %d = poot.sub %x, %m : tensor<1x4x96x96xf32>, tensor<1x4x96x1xf32>
  %e = poot.exp %d : tensor<1x4x96x96xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<1x4x96x96xf32>
  %p = poot.div %e, %z : tensor<1x4x96x96xf32>, tensor<1x4x96x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %empty = poot.compare eq, %m, %ninf : tensor<1x4x96x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %empty, %zero, %p : tensor<1x4x96x1xi1>, tensor<f32>, tensor<1x4x96x96xf32>
  %pb = poot.convert %ps : tensor<1x4x96x96xf32> -> tensor<1x4x96x96xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x4x96x96xbf16>, tensor<1x4x96x64xbf16>
  return %o : tensor<1x4x96x64xbf16>
}
