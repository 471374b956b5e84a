func.func @compare_type(%a: tensor<4xi32>, %b: tensor<4xi64>) {
  %0 = poot.compare lt, %a, %b : tensor<4xi32>, tensor<4xi64>
  return
}
