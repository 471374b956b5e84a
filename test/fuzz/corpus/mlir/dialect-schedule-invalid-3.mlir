func.func @split_no_scratch(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<split = true, splits = 4>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}
