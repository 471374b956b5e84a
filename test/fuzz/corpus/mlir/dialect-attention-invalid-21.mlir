func.func @attention_mask_type(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<1x1x1x8xf16>) -> tensor<1x2x1x16xf32> {
  %0 = poot.attention %q, %k, %v mask(%m : tensor<1x1x1x8xf16>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}
