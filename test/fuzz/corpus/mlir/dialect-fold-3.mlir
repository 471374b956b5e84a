func.func @splat_broadcast() -> tensor<2x3xf32> {
  %c = poot.constant dense<-1.0> : tensor<3xf32>
  %0 = poot.broadcast %c {shape = array<i64: 2, 3>} : tensor<3xf32>
  return %0 : tensor<2x3xf32>
}
