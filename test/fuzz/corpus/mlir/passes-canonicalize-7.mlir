func.func @pow_reciprocal(%z: tensor<2x1xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %m1 = poot.constant dense<-1.0> : tensor<f32>
  %r = poot.pow %z, %m1 : tensor<2x1xf32>, tensor<f32>
  %m2 = poot.constant dense<-2.0> : tensor<f32>
  %p = poot.pow %z, %m2 : tensor<2x1xf32>, tensor<f32>
  return %r, %p : tensor<2x1xf32>, tensor<2x1xf32>
}
