func.func @validation_state(%a: tensor<i1> {poot.state = "w"}) -> (tensor<i1> {poot.validation, poot.state = "w"}) {
  return %a : tensor<i1>
}
