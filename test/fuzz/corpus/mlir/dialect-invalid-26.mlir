func.func @gather_index_type(%x: tensor<4x8xf32>, %i: tensor<3xf32>) {
  %0 = poot.gather %x[%i] {axis = 0 : i64} : tensor<4x8xf32>, tensor<3xf32>
  return
}
