func.func @attention_mask_rank(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<1x8xf32>) -> tensor<1x2x1x16xf32> {
  %0 = poot.attention %q, %k, %v mask(%m : tensor<1x8xf32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}
