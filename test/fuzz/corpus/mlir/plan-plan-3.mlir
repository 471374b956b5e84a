func.func @live_wide(%q: tensor<1x2x1x512xf32>, %k: tensor<1x2x4096x512xf32>, %v: tensor<1x2x4096x512xf32>, %len: tensor<1xi32>) -> tensor<1x2x1x512xf32> {
  %o = poot.attention %q, %k, %v len(%len : tensor<1xi32>) {scale = 0.044 : f64, n_rep = 1 : i64} : tensor<1x2x1x512xf32>, tensor<1x2x4096x512xf32>, tensor<1x2x4096x512xf32> -> tensor<1x2x1x512xf32>
  return %o : tensor<1x2x1x512xf32>
}
