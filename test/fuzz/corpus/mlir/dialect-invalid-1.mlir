func.func @convert_shape(%x: tensor<4xf32>) -> tensor<5xf16> {
  %0 = poot.convert %x : tensor<4xf32> -> tensor<5xf16>
  return %0 : tensor<5xf16>
}
