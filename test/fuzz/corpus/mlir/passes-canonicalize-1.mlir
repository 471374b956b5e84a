func.func @compose_broadcasts(%x: tensor<1x4xf32>) -> tensor<2x3x4xf32> {
  %0 = poot.broadcast %x {shape = array<i64: 3, 4>} : tensor<1x4xf32>
  %1 = poot.broadcast %0 {shape = array<i64: 2, 3, 4>} : tensor<3x4xf32>
  return %1 : tensor<2x3x4xf32>
}
