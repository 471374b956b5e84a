func.func @sel_read(%q: tensor<2x4x1x32xf32>, %k: tensor<128x2x32xf32>, %v: tensor<128x2x16xf32>, %blocks: tensor<2x1x2xi32>, %read: tensor<3x64xi32>) {
  %0 = poot.selected_attention %q, %k, %v, %blocks read(%read : tensor<3x64xi32>) {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<128x2x32xf32>, tensor<128x2x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}
