func.func @lds(%q: tensor<1x1x1x64xf32>, %k: tensor<1x1x16x64xf32>, %v: tensor<1x1x16x8192xf32>) -> tensor<1x1x1x8192xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 1 : i64} : tensor<1x1x1x64xf32>, tensor<1x1x16x64xf32>, tensor<1x1x16x8192xf32> -> tensor<1x1x1x8192xf32>
  return %o : tensor<1x1x1x8192xf32>
}
