func.func @state_form(%k: tensor<4xf32> {poot.state = 1}) {
  return
}
