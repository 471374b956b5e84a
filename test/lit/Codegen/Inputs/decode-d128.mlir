// A fused GQA decode with 128-wide heads (Hq=8, Hkv=2, Lk=1024): on every
// GPU preset the planner picks the channel schedule for it.
func.func @decode(%q: tensor<1x8x1x128xf32>, %k: tensor<1x2x1024x128xf32>, %v: tensor<1x2x1024x128xf32>, %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 1024>}) -> tensor<1x8x1x128xf32> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x8x1x128xf32>, tensor<1x2x1024x128xf32>, tensor<1x2x1024x128xf32> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}
