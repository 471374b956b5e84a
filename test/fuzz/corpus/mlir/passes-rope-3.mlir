func.func @half_split(%x: tensor<1x4x2x8xf32>, %c: tensor<4x1x4xf32>, %s: tensor<4x1x4xf32>) -> tensor<1x4x2x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x2x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 4, 2, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x2x8xf32>
  %a = poot.mul %x1, %c : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %b = poot.mul %x2, %s : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %lo = poot.sub %a, %b : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>
  %d = poot.mul %x2, %c : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %e = poot.mul %x1, %s : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %hi = poot.add %d, %e : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>
  %out = poot.concat %lo, %hi {axis = 3 : i64} : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>
  return %out : tensor<1x4x2x8xf32>
}
