func.func @attention_k_width_split(%q: tensor<1x2x1x24xf32>, %k: tensor<1x2x8x24xf32>, %ks: tensor<1x1x8x8xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %0 = poot.attention %q, %k, %v k_shared(%ks : tensor<1x1x8x8xf32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x24xf32>, tensor<1x2x8x24xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}
