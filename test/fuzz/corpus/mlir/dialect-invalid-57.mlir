func.func @name_twice(%a: tensor<4xf32> {poot.name = "x"}, %b: tensor<4xf32> {poot.name = "x"}) {
  return
}
