func.func @unary_int(%a: tensor<4xi32>) {
  %0 = poot.exp %a : tensor<4xi32>
  return
}
