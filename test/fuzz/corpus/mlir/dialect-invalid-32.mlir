func.func @matmul_contracting(%a: tensor<2x4xf32>, %b: tensor<5x2xf32>) {
  %0 = poot.matmul %a, %b : tensor<2x4xf32>, tensor<5x2xf32>
  return
}
