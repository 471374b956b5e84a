func.func @transpose_no_perm(%k: tensor<2x1x20x64xf32>) {
  %kt = poot.transpose %k {permJ = array<i64: 0, 1, 3, 2>} : tensor<2x1x20x64xf32>
  return
}
