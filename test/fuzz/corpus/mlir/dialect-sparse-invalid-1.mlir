func.func @topk_ratio(%s: tensor<2x3x64xf32>) {
  %0 = poot.block_topk %s {ratio = 5 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  return
}
