func.func @half_width40(%x: tensor<1x2x2x40xf32>, %cos: tensor<1x1x2x40xf32>, %sin: tensor<1x1x2x40xf32>) -> tensor<1x2x2x40xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 2, 20>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x2x40xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 20>, limit = array<i64: 1, 2, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x2x40xf32>
  %n = poot.neg %x2 : tensor<1x2x2x20xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x2x20xf32>, tensor<1x2x2x20xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x2x40xf32>, tensor<1x1x2x40xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x2x40xf32>, tensor<1x1x2x40xf32>
  %out = poot.add %xc, %rs : tensor<1x2x2x40xf32>, tensor<1x2x2x40xf32>
  return %out : tensor<1x2x2x40xf32>
}
