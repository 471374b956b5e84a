func.func @interleaved_complex(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x1x4x1xf32>, %s: tensor<1x4x1x4x1xf32>) -> tensor<1x4x2x8xf32> {
  %x5 = poot.reshape %x : tensor<1x4x2x8xf32> -> tensor<1x4x2x4x2xf32>
  %re = poot.slice %x5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 4, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x2x4x2xf32>
  %im = poot.slice %x5 {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 4, 2, 4, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x2x4x2xf32>
  %rc = poot.mul %re, %c : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %is = poot.mul %im, %s : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %ore = poot.sub %rc, %is : tensor<1x4x2x4x1xf32>, tensor<1x4x2x4x1xf32>
  %rs = poot.mul %re, %s : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %ic = poot.mul %im, %c : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %oim = poot.add %rs, %ic : tensor<1x4x2x4x1xf32>, tensor<1x4x2x4x1xf32>
  %o5 = poot.concat %ore, %oim {axis = 4 : i64} : tensor<1x4x2x4x1xf32>, tensor<1x4x2x4x1xf32>
  %out = poot.reshape %o5 : tensor<1x4x2x4x2xf32> -> tensor<1x4x2x8xf32>
  return %out : tensor<1x4x2x8xf32>
}
