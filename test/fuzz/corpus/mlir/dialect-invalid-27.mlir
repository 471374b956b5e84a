func.func @scatter_rank(%x: tensor<4x8xf32>, %i: tensor<1x2xi32>, %u: tensor<2x8xf32>) {
  %0 = poot.scatter_update %x[%i], %u : tensor<4x8xf32>, tensor<1x2xi32>, tensor<2x8xf32>
  return
}
