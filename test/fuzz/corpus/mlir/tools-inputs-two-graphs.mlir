func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = poot.add %x, %x : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = poot.mul %x, %x : tensor<4xf32>, tensor<4xf32>
  return %y : tensor<4xf32>
}
