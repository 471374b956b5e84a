func.func @validation_type(%a: tensor<4xf32>) -> (tensor<4xf32> {poot.validation}) {
  return %a : tensor<4xf32>
}
