func.func @fold_convert() -> (tensor<3xf16>, tensor<4xi32>, tensor<3xi1>) {
  %a = poot.constant dense<[1, 3, -7]> : tensor<3xi64>
  %f = poot.convert %a : tensor<3xi64> -> tensor<3xf16>
  %b = poot.constant dense<[2.9, -2.9, 1.0e+10, 0x7FC00000]> : tensor<4xf32>
  %i = poot.convert %b : tensor<4xf32> -> tensor<4xi32>
  %c = poot.constant dense<[0.5, 0.0, -1.0]> : tensor<3xf32>
  %t = poot.convert %c : tensor<3xf32> -> tensor<3xi1>
  return %f, %i, %t : tensor<3xf16>, tensor<4xi32>, tensor<3xi1>
}
