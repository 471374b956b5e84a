func.func @state_result_unpaired(%k: tensor<4xf32>) -> (tensor<4xf32> {poot.state = "v"}) {
  return %k : tensor<4xf32>
}
