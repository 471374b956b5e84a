func.func @partial_backwards(%x: tensor<1x2x4x16xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x16xf32> {
  %xr = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x16xf32>
  %x1 = poot.slice %xr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %xr {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x1 : tensor<1x2x4x4xf32>
  %rot = poot.concat %x2, %n {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %xr, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %r = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x16xf32>
  %out = poot.concat %r, %pass {axis = 3 : i64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x16xf32>
}
