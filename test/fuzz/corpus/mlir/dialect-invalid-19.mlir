func.func @dynamic_slice_size(%x: tensor<4x4xf32>, %p: tensor<i32>) {
  %0 = poot.dynamic_slice %x[%p, %p] {sizes = array<i64: 1, 5>} : tensor<4x4xf32>, tensor<i32>, tensor<i32>
  return
}
