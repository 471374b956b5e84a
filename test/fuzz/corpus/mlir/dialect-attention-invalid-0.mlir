func.func @rope_style(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<1x2x4x8xf32> {
  %0 = poot.rope %x, %c, %s {style = "spiral", rotary_dim = 8 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}
