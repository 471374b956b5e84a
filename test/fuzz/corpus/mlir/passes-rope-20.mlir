func.func @interleaved_backwards(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %perm = poot.constant dense<[1, 0, 3, 2, 5, 4, 7, 6]> : tensor<8xi32>
  %sign = poot.constant dense<[1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]> : tensor<8xf32>
  %xp = poot.gather %x[%perm] {axis = 3 : i64} : tensor<1x2x4x8xf32>, tensor<8xi32>
  %rot = poot.mul %xp, %sign : tensor<1x2x4x8xf32>, tensor<8xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}
