func.func @state_type(%k: tensor<4xf32> {poot.state = "k"}) -> (tensor<4xf16> {poot.state = "k"}) {
  %0 = poot.convert %k : tensor<4xf32> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}
