func.func @unbounded_len(%len: tensor<2xi32> {poot.slot = "len"}) -> (tensor<2xi32>, tensor<i1> {poot.validation}) {
  %c, %w = poot.index_guard %len {lo = 1 : i64, hi = 32 : i64} : tensor<2xi32>
  return %c, %w : tensor<2xi32>, tensor<i1>
}
