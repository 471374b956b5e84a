func.func @topk_rank(%a: tensor<f32>) {
  %0, %1 = poot.topk %a {k = 1 : i64} : tensor<f32>
  return
}
