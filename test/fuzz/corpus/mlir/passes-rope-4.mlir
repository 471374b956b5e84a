func.func @interleaved(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %ev = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xf32>
  %od = poot.slice %x {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xf32>
  %n = poot.neg %od : tensor<1x2x4x4xf32>
  %a = poot.reshape %n : tensor<1x2x4x4xf32> -> tensor<1x2x4x4x1xf32>
  %b = poot.reshape %ev : tensor<1x2x4x4xf32> -> tensor<1x2x4x4x1xf32>
  %pairs = poot.concat %a, %b {axis = 4 : i64} : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>
  %rot = poot.reshape %pairs : tensor<1x2x4x4x2xf32> -> tensor<1x2x4x8xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}
