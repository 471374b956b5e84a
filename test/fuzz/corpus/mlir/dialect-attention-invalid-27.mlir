func.func @attention_window(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %0 = poot.attention %q, %k, %v {causal, n_rep = 1 : i64, scale = 1.0 : f64, window = 0 : i64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}
