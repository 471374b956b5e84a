func.func @dynamic_slice_start_type(%x: tensor<4xf32>, %p: tensor<1xi32>) {
  %0 = poot.dynamic_slice %x[%p] {sizes = array<i64: 1>} : tensor<4xf32>, tensor<1xi32>
  return
}
