func.func @fold_large_splat() -> tensor<64x128xf32> {
  %one = poot.constant dense<1.0> : tensor<64x128xf32>
  %four = poot.constant dense<4.0> : tensor<f32>
  %q = poot.div %one, %four : tensor<64x128xf32>, tensor<f32>
  return %q : tensor<64x128xf32>
}
