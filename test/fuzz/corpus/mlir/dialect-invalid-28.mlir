func.func @scatter_shape(%x: tensor<4x8xf32>, %i: tensor<2xi32>, %u: tensor<3x8xf32>) {
  %0 = poot.scatter_update %x[%i], %u : tensor<4x8xf32>, tensor<2xi32>, tensor<3x8xf32>
  return
}
