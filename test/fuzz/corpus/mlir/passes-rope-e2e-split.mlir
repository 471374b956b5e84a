func.func @rope_split(%x: tensor<1x6x2x40xf32>, %c: tensor<6x1x8xf32>, %s: tensor<6x1x8xf32>) -> tensor<1x6x2x40xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 6, 2, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x40xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 6, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x40xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 6, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x40xf32>
  %a = poot.mul %x1, %c : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %b = poot.mul %x2, %s : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %lo = poot.sub %a, %b : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>
  %d = poot.mul %x2, %c : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %e = poot.mul %x1, %s : tensor<1x6x2x8xf32>, tensor<6x1x8xf32>
  %hi = poot.add %d, %e : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>
  %out = poot.concat %lo, %hi, %pass {axis = 3 : i64} : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>, tensor<1x6x2x24xf32>
  return %out : tensor<1x6x2x40xf32>
}
