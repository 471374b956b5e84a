func.func @transpose_perm_kind(%k: tensor<2x3xf32>) {
  %kt = poot.transpose %k {perm = 3 : i64} : tensor<2x3xf32>
  return
}
