func.func @concat_type(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  %0 = poot.concat %x, %y {axis = 0 : i64} : tensor<4xf32>, tensor<4xf16>
  return
}
