func.func @hoist_reshape_broadcast(%z: tensor<2x3xf32>, %k: tensor<2x1x8xf32>) -> (tensor<2x3x1xf32>, tensor<2x4x8xf32>) {
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %z : tensor<f32>, tensor<2x3xf32>
  %r3 = poot.reshape %r : tensor<2x3xf32> -> tensor<2x3x1xf32>
  %c = poot.constant dense<3.0> : tensor<f32>
  %kc = poot.div %k, %c : tensor<2x1x8xf32>, tensor<f32>
  %kb = poot.broadcast %kc {shape = array<i64: 2, 4, 8>} : tensor<2x1x8xf32>
  return %r3, %kb : tensor<2x3x1xf32>, tensor<2x4x8xf32>
}
