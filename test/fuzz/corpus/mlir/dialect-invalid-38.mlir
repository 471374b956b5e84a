func.func @compare_shape(%a: tensor<4xi32>, %b: tensor<2xi32>) {
  %0 = poot.compare lt, %a, %b : tensor<4xi32>, tensor<2xi32>
  return
}
