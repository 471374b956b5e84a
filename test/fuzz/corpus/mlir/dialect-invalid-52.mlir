func.func @state_unpaired(%k: tensor<4xf32> {poot.state = "k"}) {
  return
}
