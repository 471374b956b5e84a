func.func @topk_ratio_zero(%s: tensor<2x3x64xf32>) {
  %0 = poot.block_topk %s {ratio = 0 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  return
}
