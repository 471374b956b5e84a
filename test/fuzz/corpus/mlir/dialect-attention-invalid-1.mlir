func.func @rope_rank0(%x: tensor<f32>, %c: tensor<f32>, %s: tensor<f32>) -> tensor<f32> {
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 2 : i64} : tensor<f32>, tensor<f32>, tensor<f32>
  return %0 : tensor<f32>
}
