// A graph whose only i64 values are an attention's position, which reaches
// the attention kernel as i32, and a constant, which has no kernel: its
// SPIR-V asks for no 64-bit integers (generate-int64.mlir).
func.func @position(%q: tensor<1x2x1x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>,
                    %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> (tensor<1x2x1x32xf32>, tensor<i64>) {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i64>) {causal, scale = 0.17677669 : f64, n_rep = 1 : i64} : tensor<1x2x1x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32> -> tensor<1x2x1x32xf32>
  %c = poot.constant dense<5000000000> : tensor<i64>
  return %o, %c : tensor<1x2x1x32xf32>, tensor<i64>
}
