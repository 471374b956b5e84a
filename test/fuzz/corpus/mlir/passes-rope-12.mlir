func.func @interleaved_bf16(%x: tensor<1x2x4x8xbf16>, %cos32: tensor<1x1x4x8xf32>, %sin32: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xbf16> {
  %cos = poot.convert %cos32 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8xbf16>
  %sin = poot.convert %sin32 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8xbf16>
  %ev = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xbf16>
  %od = poot.slice %x {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xbf16>
  %n = poot.neg %od : tensor<1x2x4x4xbf16>
  %a = poot.reshape %n : tensor<1x2x4x4xbf16> -> tensor<1x2x4x4x1xbf16>
  %b = poot.reshape %ev : tensor<1x2x4x4xbf16> -> tensor<1x2x4x4x1xbf16>
  %pairs = poot.concat %a, %b {axis = 4 : i64} : tensor<1x2x4x4x1xbf16>, tensor<1x2x4x4x1xbf16>
  %rot = poot.reshape %pairs : tensor<1x2x4x4x2xbf16> -> tensor<1x2x4x8xbf16>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xbf16>, tensor<1x1x4x8xbf16>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xbf16>, tensor<1x1x4x8xbf16>
  %out = poot.add %xc, %rs : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>
  return %out : tensor<1x2x4x8xbf16>
}
