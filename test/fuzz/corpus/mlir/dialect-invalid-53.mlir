func.func @state_twice(%k: tensor<4xf32> {poot.state = "k"}, %k2: tensor<4xf32> {poot.state = "k"}) -> (tensor<4xf32> {poot.state = "k"}) {
  return %k : tensor<4xf32>
}
