func.func @range_empty(%p: tensor<i32> {poot.range = array<i64: 4, 4>}) {
  return
}
