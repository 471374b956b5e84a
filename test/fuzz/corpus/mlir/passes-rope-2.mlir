func.func @half_sub(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x1 : tensor<1x2x4x4xf32>
  %rot = poot.concat %x2, %n {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %sin, %rot : tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>
  %out = poot.sub %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}
