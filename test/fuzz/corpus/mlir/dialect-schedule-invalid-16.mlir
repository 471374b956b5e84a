func.func @tile_half(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 32, lanes = 128, matrix = true, tile_rows = 64>} : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}
