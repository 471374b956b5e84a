func.func @dynamic_slice_sizes(%x: tensor<4x4xf32>, %p: tensor<i32>) {
  %0 = poot.dynamic_slice %x[%p, %p] {sizes = array<i64: 1>} : tensor<4x4xf32>, tensor<i32>, tensor<i32>
  return
}
