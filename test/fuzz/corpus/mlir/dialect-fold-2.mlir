func.func @select_constant(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = poot.constant dense<false> : tensor<4xi1>
  %0 = poot.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  return %0 : tensor<4xf32>
}
