func.func @gather_identity_and_tile(%k: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x4x8x16xf32>) {
  %id = poot.iota {dim = 0 : i64} : tensor<2xi32>
  %a = poot.gather %k[%id] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<2xi32>
  %tile = poot.constant dense<[0, 1, 0, 1]> : tensor<4xi32>
  %b = poot.gather %k[%tile] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<4xi32>
  return %a, %b : tensor<1x2x8x16xf32>, tensor<1x4x8x16xf32>
}
