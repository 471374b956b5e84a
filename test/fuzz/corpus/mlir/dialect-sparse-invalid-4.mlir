func.func @topk_pos(%s: tensor<2x3x64xf32>, %pos: tensor<3xi32>) {
  %0 = poot.block_topk %s pos(%pos : tensor<3xi32>) {ratio = 4 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  return
}
