func.func @topk_k(%s: tensor<2x3x64xf32>) {
  %0 = poot.block_topk %s {ratio = 4 : i64, k = 17 : i64} : tensor<2x3x64xf32> -> tensor<2x3x17xi32>
  return
}
