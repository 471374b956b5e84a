func.func @sel_types(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xbf16>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xbf16>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}
