func.func @f32_prefill(%q: tensor<1x8x100x128xf32>, %k: tensor<1x2x100x128xf32>, %v: tensor<1x2x100x128xf32>) -> tensor<1x8x100x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x8x100x128xf32>, tensor<1x2x100x128xf32>, tensor<1x2x100x128xf32> -> tensor<1x8x100x128xf32>
  return %o : tensor<1x8x100x128xf32>
}
func.func @width_80(%q: tensor<1x8x100x80xbf16>, %k: tensor<1x2x100x80xbf16>, %v: tensor<1x2x100x80xbf16>) -> tensor<1x8x100x80xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.11 : f64, n_rep = 4 : i64, causal} : tensor<1x8x100x80xbf16>, tensor<1x2x100x80xbf16>, tensor<1x2x100x80xbf16> -> tensor<1x8x100x80xbf16>
  return %o : tensor<1x8x100x80xbf16>
}
func.func @four_rows(%q: tensor<1x8x4x128xbf16>, %k: tensor<1x2x100x128xbf16>, %v: tensor<1x2x100x128xbf16>, %pos: tensor<i32>) -> tensor<1x8x4x128xbf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x8x4x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16> -> tensor<1x8x4x128xbf16>
  return %o : tensor<1x8x4x128xbf16>
}
func.func @sixteen_rows(%q: tensor<1x8x16x128xbf16>, %k: tensor<1x2x100x128xbf16>, %v: tensor<1x2x100x128xbf16>, %pos: tensor<i32>) -> tensor<1x8x16x128xbf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x8x16x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16> -> tensor<1x8x16x128xbf16>
  return %o : tensor<1x8x16x128xbf16>
}
