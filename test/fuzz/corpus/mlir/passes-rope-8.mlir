func.func @partial_interleaved(%x: tensor<1x2x3x96xf32>, %cos: tensor<1x1x3x32xf32>, %sin: tensor<1x1x3x32xf32>) -> tensor<1x2x3x96xf32> {
  %xr = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x96xf32>
  %ev = poot.slice %xr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x3x32xf32>
  %od = poot.slice %xr {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 3, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x3x32xf32>
  %n = poot.neg %od : tensor<1x2x3x16xf32>
  %a = poot.reshape %n : tensor<1x2x3x16xf32> -> tensor<1x2x3x16x1xf32>
  %b = poot.reshape %ev : tensor<1x2x3x16xf32> -> tensor<1x2x3x16x1xf32>
  %pairs = poot.concat %a, %b {axis = 4 : i64} : tensor<1x2x3x16x1xf32>, tensor<1x2x3x16x1xf32>
  %rot = poot.reshape %pairs : tensor<1x2x3x16x2xf32> -> tensor<1x2x3x32xf32>
  %xc = poot.mul %xr, %cos : tensor<1x2x3x32xf32>, tensor<1x1x3x32xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x3x32xf32>, tensor<1x1x3x32xf32>
  %r = poot.add %xc, %rs : tensor<1x2x3x32xf32>, tensor<1x2x3x32xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 1, 2, 3, 96>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x96xf32>
  %out = poot.concat %r, %pass {axis = 3 : i64} : tensor<1x2x3x32xf32>, tensor<1x2x3x64xf32>
  return %out : tensor<1x2x3x96xf32>
}
