func.func @reshape_count(%x: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = poot.reshape %x : tensor<4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
