func.func @topk_k(%a: tensor<2x4xf32>) {
  %0, %1 = poot.topk %a {k = 5 : i64} : tensor<2x4xf32>
  return
}
