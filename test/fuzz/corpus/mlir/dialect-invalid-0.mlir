func.func @iota_dim() -> tensor<4xi32> {
  %0 = poot.iota {dim = 1 : i64} : tensor<4xi32>
  return %0 : tensor<4xi32>
}
