func.func @compose_transposes(%x: tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32> {
  %0 = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf32>
  %1 = poot.transpose %0 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x3x5xf32>
  return %1 : tensor<2x4x5x3xf32>
}
