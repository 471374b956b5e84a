func.func @update_dim(%x: tensor<4x8xf32>, %u: tensor<1x9xf32>, %p: tensor<i32>) {
  %0 = poot.dynamic_update_slice %x[%p, %p], %u : tensor<4x8xf32>, tensor<1x9xf32>, tensor<i32>, tensor<i32>
  return
}
