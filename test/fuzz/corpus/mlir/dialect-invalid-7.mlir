func.func @broadcast_rank(%x: tensor<2x3xf32>) {
  %0 = poot.broadcast %x {shape = array<i64: 3>} : tensor<2x3xf32>
  return
}
