func.func @llama70b_batch128(%q: tensor<128x64x1x128xf32>, %k: tensor<128x8x8192x128xf32>, %v: tensor<128x8x8192x128xf32>) -> tensor<128x64x1x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 8 : i64} : tensor<128x64x1x128xf32>, tensor<128x8x8192x128xf32>, tensor<128x8x8192x128xf32> -> tensor<128x64x1x128xf32>
  return %o : tensor<128x64x1x128xf32>
}
