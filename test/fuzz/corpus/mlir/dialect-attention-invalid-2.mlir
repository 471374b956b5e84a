func.func @rope_dim_odd(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 7 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}
