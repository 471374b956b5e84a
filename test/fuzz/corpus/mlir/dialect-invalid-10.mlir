func.func @slice_lengths(%x: tensor<4xf32>) {
  %0 = poot.slice %x {start = array<i64: 0>, limit = array<i64: 2, 2>, step = array<i64: 1>} : tensor<4xf32>
  return
}
