func.func @partial_split(%x: tensor<1x2x3x12xf32>, %c: tensor<1x1x3x4xf32>, %s: tensor<1x1x3x4xf32>) -> tensor<1x2x3x12xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x12xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 3, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x12xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 3, 12>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x12xf32>
  %a = poot.mul %x1, %c : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %b = poot.mul %x2, %s : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %lo = poot.sub %a, %b : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  %d = poot.mul %x2, %c : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %e = poot.mul %x1, %s : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %hi = poot.add %e, %d : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  %out = poot.concat %lo, %hi, %pass {axis = 3 : i64} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  return %out : tensor<1x2x3x12xf32>
}
