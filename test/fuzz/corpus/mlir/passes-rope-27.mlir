func.func @not_rope(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>, %d: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ab = poot.mul %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  %cd = poot.mul %c, %d : tensor<4x8xf32>, tensor<4x8xf32>
  %out = poot.add %ab, %cd : tensor<4x8xf32>, tensor<4x8xf32>
  return %out : tensor<4x8xf32>
}
