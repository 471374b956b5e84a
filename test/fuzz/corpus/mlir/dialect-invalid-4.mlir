func.func @transpose_length(%x: tensor<2x3xf32>) {
  %0 = poot.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<2x3xf32>
  return
}
