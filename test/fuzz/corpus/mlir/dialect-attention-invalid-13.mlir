func.func @attention_key_pool(%q: tensor<1x2x1x16xf32>, %k: tensor<8x2x8xf32>, %v: tensor<8x2x16xf32>, %read: tensor<1x4xi32>) -> tensor<1x2x1x16xf32> {
  %0 = poot.attention %q, %k, %v read(%read : tensor<1x4xi32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<8x2x8xf32>, tensor<8x2x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}
