func.func @slot_type(%p: tensor<f32> {poot.slot = "pos"}) {
  return
}
