func.func @gather_axis(%x: tensor<4x8xf32>, %i: tensor<3xi32>) {
  %0 = poot.gather %x[%i] {axis = 2 : i64} : tensor<4x8xf32>, tensor<3xi32>
  return
}
