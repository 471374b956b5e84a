func.func @name_empty(%a: tensor<4xf32> {poot.name = ""}) {
  return
}
