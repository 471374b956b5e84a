func.func @validation_form(%a: tensor<i1>) -> (tensor<i1> {poot.validation = true}) {
  return %a : tensor<i1>
}
