func.func @select_type(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  %0 = poot.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf16>
  return
}
