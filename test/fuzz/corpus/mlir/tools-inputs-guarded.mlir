func.func @guarded(%cache: tensor<8x4xf32> {poot.state = "cache"},
                   %row: tensor<1x4xf32> {poot.name = "row"},
                   %len: tensor<i32> {poot.slot = "len", poot.range = array<i64: 0, 100>})
    -> (tensor<8x4xf32> {poot.state = "cache"}, tensor<i1> {poot.validation},
        tensor<1x4xf32> {poot.name = "out"}) {
  %c, %w = poot.index_guard %len {lo = 1 : i64, hi = 8 : i64} : tensor<i32>
  %one = poot.constant dense<1> : tensor<i32>
  %at = poot.sub %c, %one : tensor<i32>, tensor<i32>
  %z = poot.constant dense<0> : tensor<i32>
  %new = poot.dynamic_update_slice %cache[%at, %z], %row : tensor<8x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>
  %e = poot.exp %row : tensor<1x4xf32>
  return %new, %w, %e : tensor<8x4xf32>, tensor<i1>, tensor<1x4xf32>
}
