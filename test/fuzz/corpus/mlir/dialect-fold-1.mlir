func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = poot.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = poot.reshape %0 : tensor<6x4xf32> -> tensor<24xf32>
  return %1 : tensor<24xf32>
}
