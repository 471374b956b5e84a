func.func @matmul_type(%a: tensor<2x4xf32>, %b: tensor<4x2xf16>) {
  %0 = poot.matmul %a, %b : tensor<2x4xf32>, tensor<4x2xf16>
  return
}
