func.func @prefill_8b(%q: tensor<1x32x1024x128xbf16>, %k: tensor<1x8x1024x128xbf16>, %v: tensor<1x8x1024x128xbf16>) -> tensor<1x32x1024x128xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x32x1024x128xbf16>, tensor<1x8x1024x128xbf16>, tensor<1x8x1024x128xbf16> -> tensor<1x32x1024x128xbf16>
  return %o : tensor<1x32x1024x128xbf16>
}
