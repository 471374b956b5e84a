func.func @slice_bounds(%x: tensor<4xf32>) {
  %0 = poot.slice %x {start = array<i64: 2>, limit = array<i64: 5>, step = array<i64: 1>} : tensor<4xf32>
  return
}
