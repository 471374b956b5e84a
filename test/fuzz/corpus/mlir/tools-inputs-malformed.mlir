func.func @broken(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = poot.exp %x : tensor<4xf32>
  %1 = poot.transpose %0 {perm = array<i64: 1>} : tensor<4xf32>
  return %1 : tensor<4xf32>
}
