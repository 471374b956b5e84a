func.func @attention_k_shape(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %0 = poot.attention %q, %k, %v {n_rep = 2 : i64, scale = 1.0 : f64} : tensor<1x4x1x16xf32>, tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x1x16xf32>
  return %0 : tensor<1x4x1x16xf32>
}
