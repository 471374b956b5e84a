func.func @gather_repeat_interleave(%k: tensor<1x2x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %heads = poot.constant dense<[0, 0, 1, 1]> : tensor<4xi32>
  %a = poot.gather %k[%heads] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<4xi32>
  %h = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %n = poot.constant dense<3> : tensor<i64>
  %map = poot.div %h, %n : tensor<4xi64>, tensor<i64>
  %b = poot.gather %k[%map] {axis = -3 : i64} : tensor<1x2x8x16xf32>, tensor<4xi64>
  return %a, %b : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}
