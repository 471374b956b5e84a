// masked-rows-f16.mlir under PyTorch's safe softmax: the probabilities are
// zeroed where the row's max is -inf (torch._safe_softmax, what
// scaled_dot_product_attention's math path computes since 2.5). With the
// same mask as masked-rows (every key of batch row 0 hidden, all but the
// last 124 of row 1, a scattered few of row 2) row 0 is 0, not NaN: the
// fused op carries zero_empty_rows, and every schedule (split chunks that
// see no key, the combine) must give 0 there.
func.func @masked_rows_safe_f16(%q: tensor<3x4x1x128xf16> {poot.name = "q"},
                           %k: tensor<3x1x1024x128xf16> {poot.name = "k"},
                           %v: tensor<3x1x1024x128xf16> {poot.name = "v"},
                           %mask: tensor<3x1x1x1024xf16> {poot.name = "mask"})
    -> tensor<3x4x1x128xf16> {
  %k5 = poot.reshape %k : tensor<3x1x1024x128xf16> -> tensor<3x1x1x1024x128xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 3, 1, 4, 1024, 128>} : tensor<3x1x1x1024x128xf16>
  %kr = poot.reshape %kb : tensor<3x1x4x1024x128xf16> -> tensor<3x4x1024x128xf16>
  %v5 = poot.reshape %v : tensor<3x1x1024x128xf16> -> tensor<3x1x1x1024x128xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 3, 1, 4, 1024, 128>} : tensor<3x1x1x1024x128xf16>
  %vr = poot.reshape %vb : tensor<3x1x4x1024x128xf16> -> tensor<3x4x1024x128xf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<3x4x1024x128xf16>
  %s = poot.matmul %q, %kt : tensor<3x4x1x128xf16>, tensor<3x4x128x1024xf16>
  %c = poot.constant dense<0.0883883476> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<3x4x1x1024xf16>, tensor<f16>
  %sm = poot.add %ss, %mask : tensor<3x4x1x1024xf16>, tensor<3x1x1x1024xf16>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<3x4x1x1024xf16>
  %d = poot.sub %sm, %m : tensor<3x4x1x1024xf16>, tensor<3x4x1x1xf16>
  %e = poot.exp %d : tensor<3x4x1x1024xf16>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<3x4x1x1024xf16>
  %p = poot.div %e, %z : tensor<3x4x1x1024xf16>, tensor<3x4x1x1xf16>
  %ninf = poot.constant dense<0xFC00> : tensor<f16>
  %empty = poot.compare eq, %m, %ninf : tensor<3x4x1x1xf16>, tensor<f16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %ps = poot.select %empty, %zero, %p : tensor<3x4x1x1xi1>, tensor<f16>, tensor<3x4x1x1024xf16>
  %o = poot.matmul %ps, %vr : tensor<3x4x1x1024xf16>, tensor<3x4x1024x128xf16>
  return %o : tensor<3x4x1x128xf16>
}
