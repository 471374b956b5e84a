func.func @scratch(%q: tensor<1x1x1x128xf32>, %k: tensor<1x1x32768x128xf32>, %v: tensor<1x1x32768x128xf32>) -> tensor<1x1x1x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088 : f64, n_rep = 1 : i64} : tensor<1x1x1x128xf32>, tensor<1x1x32768x128xf32>, tensor<1x1x32768x128xf32> -> tensor<1x1x1x128xf32>
  return %o : tensor<1x1x1x128xf32>
}
