func.func @concat_axis(%x: tensor<4xf32>) {
  %0 = poot.concat %x, %x {axis = 1 : i64} : tensor<4xf32>, tensor<4xf32>
  return
}
