func.func @attention_pos(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>, %pos: tensor<2x1xi32>) -> tensor<2x2x1x16xf32> {
  %0 = poot.attention %q, %k, %v pos(%pos : tensor<2x1xi32>) {causal, n_rep = 1 : i64, scale = 1.0 : f64} : tensor<2x2x1x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x1x16xf32>
  return %0 : tensor<2x2x1x16xf32>
}
