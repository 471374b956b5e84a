func.func @binary_type(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  %0 = poot.add %a, %b : tensor<4xf32>, tensor<4xf16>
  return
}
