func.func @binary_broadcast(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  %0 = poot.mul %a, %b : tensor<4xf32>, tensor<3xf32>
  return
}
