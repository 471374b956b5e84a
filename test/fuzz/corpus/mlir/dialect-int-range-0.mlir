func.func @decode_positions(%pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 64>}) -> (tensor<64xi1>, tensor<i32>, tensor<i1> {poot.validation}) {
  %t = poot.iota {dim = 0 : i64} : tensor<64xi32>
  %p = poot.broadcast %pos {shape = array<i64: 64>} : tensor<i32>
  %visible = poot.compare le, %t, %p : tensor<64xi32>, tensor<64xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %len = poot.add %pos, %one : tensor<i32>, tensor<i32>
  %c, %w = poot.index_guard %len {lo = 1 : i64, hi = 64 : i64} : tensor<i32>
  return %visible, %c, %w : tensor<64xi1>, tensor<i32>, tensor<i1>
}
