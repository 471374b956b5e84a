func.func @dynamic_slice_starts(%x: tensor<4x4xf32>, %p: tensor<i32>) {
  %0 = poot.dynamic_slice %x[%p] {sizes = array<i64: 1, 1>} : tensor<4x4xf32>, tensor<i32>
  return
}
