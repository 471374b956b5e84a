func.func @llama70b_decode(%q: tensor<1x64x1x128xf16>, %k: tensor<1x8x32768x128xf16>, %v: tensor<1x8x32768x128xf16>, %pos: tensor<i32>) -> tensor<1x64x1x128xf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 8 : i64, causal} : tensor<1x64x1x128xf16>, tensor<1x8x32768x128xf16>, tensor<1x8x32768x128xf16> -> tensor<1x64x1x128xf16>
  return %o : tensor<1x64x1x128xf16>
}
