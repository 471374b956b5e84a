func.func @slot_name(%p: tensor<i32> {poot.slot = "position"}) {
  return
}
