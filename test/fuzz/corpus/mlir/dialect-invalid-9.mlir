func.func @broadcast_positive(%x: tensor<1xf32>) {
  %0 = poot.broadcast %x {shape = array<i64: 0, 1>} : tensor<1xf32>
  return
}
