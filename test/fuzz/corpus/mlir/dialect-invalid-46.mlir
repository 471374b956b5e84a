func.func @guard_bounds(%a: tensor<2xi32>) {
  %0, %1 = poot.index_guard %a {lo = 5 : i64, hi = 1 : i64} : tensor<2xi32>
  return
}
