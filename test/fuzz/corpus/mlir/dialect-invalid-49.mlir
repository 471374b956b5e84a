func.func @range_form(%p: tensor<i32> {poot.range = array<i64: 1>}) {
  return
}
