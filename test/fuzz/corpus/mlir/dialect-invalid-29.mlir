func.func @scatter_type(%x: tensor<4x8xf32>, %i: tensor<2xi32>, %u: tensor<2x8xbf16>) {
  %0 = poot.scatter_update %x[%i], %u : tensor<4x8xf32>, tensor<2xi32>, tensor<2x8xbf16>
  return
}
