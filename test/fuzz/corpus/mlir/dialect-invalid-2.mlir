func.func @reshape_type(%x: tensor<4xf32>) -> tensor<2x2xf16> {
  %0 = poot.reshape %x : tensor<4xf32> -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}
