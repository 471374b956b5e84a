func.func @update_type(%x: tensor<4x8xf32>, %u: tensor<1x8xf16>, %p: tensor<i32>) {
  %0 = poot.dynamic_update_slice %x[%p, %p], %u : tensor<4x8xf32>, tensor<1x8xf16>, tensor<i32>, tensor<i32>
  return
}
