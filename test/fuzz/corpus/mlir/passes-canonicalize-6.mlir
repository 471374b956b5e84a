func.func @fold_slice() -> tensor<2x3xi1> {
  %tril = poot.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %s = poot.slice %tril {start = array<i64: 1, 0>, limit = array<i64: 3, 3>, step = array<i64: 1, 1>} : tensor<4x4xi1>
  return %s : tensor<2x3xi1>
}
