func.func @matmul_batch(%a: tensor<3x2x4xf32>, %b: tensor<2x4x2xf32>) {
  %0 = poot.matmul %a, %b : tensor<3x2x4xf32>, tensor<2x4x2xf32>
  return
}
