func.func @div_power_of_two(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %c8 = poot.constant dense<8.0> : tensor<f32>
  %a = poot.div %x, %c8 : tensor<2x4xf32>, tensor<f32>
  %c3 = poot.constant dense<3.0> : tensor<f32>
  %b = poot.div %x, %c3 : tensor<2x4xf32>, tensor<f32>
  return %a, %b : tensor<2x4xf32>, tensor<2x4xf32>
}
