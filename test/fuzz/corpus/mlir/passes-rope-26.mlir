func.func @odd_width(%x: tensor<1x2x4x5xf32>, %cos: tensor<1x1x4x5xf32>, %sin: tensor<1x1x4x5xf32>) -> tensor<1x2x4x5xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 3>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x5xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 3>, limit = array<i64: 1, 2, 4, 5>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x5xf32>
  %n = poot.neg %x2 : tensor<1x2x4x2xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x2xf32>, tensor<1x2x4x3xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x5xf32>, tensor<1x1x4x5xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x5xf32>, tensor<1x1x4x5xf32>
  %out = poot.add %xc, %rs : tensor<1x2x4x5xf32>, tensor<1x2x4x5xf32>
  return %out : tensor<1x2x4x5xf32>
}
