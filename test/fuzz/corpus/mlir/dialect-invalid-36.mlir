func.func @logic_type(%a: tensor<4xi32>) {
  %0 = poot.and %a, %a : tensor<4xi32>, tensor<4xi32>
  return
}
