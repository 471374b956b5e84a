func.func @split_matrix(%q: tensor<1x4x1x64xf16>, %k: tensor<1x2x128x64xf16>, %v: tensor<1x2x128x64xf16>) -> tensor<1x4x1x64xf16> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<device = "sm_90", split = true, grouped = true, group = 2, lanes = 64, subgroup = 32, vector = 8, matrix = true, value_vector = 4, splits = 4, chunk = 32, grid_x = 8, state_bytes = 1024, scratch_bytes = 4352, fused_combine = true, counter_bytes = 8>} : tensor<1x4x1x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x4x1x64xf16>
  return %o : tensor<1x4x1x64xf16>
}

func.func @defaults(%q: tensor<1x2x1x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>) -> tensor<1x2x1x8xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.5 : f64, n_rep = 1 : i64, poot.schedule = #poot.attention_schedule<>} : tensor<1x2x1x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}
