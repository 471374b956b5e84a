func.func @arg_unknown(%a: tensor<4xi1> {poot.validation}) {
  return
}
