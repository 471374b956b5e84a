func.func @transpose_perm(%x: tensor<2x3xf32>) {
  %0 = poot.transpose %x {perm = array<i64: 1, 1>} : tensor<2x3xf32>
  return
}
