func.func @concat_dim(%x: tensor<4x2xf32>, %y: tensor<3x2xf32>) {
  %0 = poot.concat %x, %y {axis = 1 : i64} : tensor<4x2xf32>, tensor<3x2xf32>
  return
}
