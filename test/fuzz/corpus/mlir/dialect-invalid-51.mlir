func.func @range_type(%p: tensor<2xf32> {poot.range = array<i64: 0, 4>}) {
  return
}
