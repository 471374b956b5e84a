func.func @wide_head(%q: tensor<1x4x200x256xf16>, %k: tensor<1x2x200x256xf16>, %v: tensor<1x2x200x256xf16>) -> tensor<1x4x200x256xf16> {
  %o = poot.attention %q, %k, %v {scale = 0.0625 : f64, n_rep = 2 : i64, causal} : tensor<1x4x200x256xf16>, tensor<1x2x200x256xf16>, tensor<1x2x200x256xf16> -> tensor<1x4x200x256xf16>
  return %o : tensor<1x4x200x256xf16>
}
