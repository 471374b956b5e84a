func.func @hoist_shared(%q: tensor<1x5x2x8xf32>) -> (tensor<1x2x5x8xf32>, tensor<1x5x2x8xf32>) {
  %c = poot.constant dense<0.125> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<1x5x2x8xf32>, tensor<f32>
  %t = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32>
  return %t, %qs : tensor<1x2x5x8xf32>, tensor<1x5x2x8xf32>
}
