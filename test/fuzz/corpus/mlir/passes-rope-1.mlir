func.func @half_hf(%x: tensor<1x2x4x8xf32>, %cos3: tensor<1x4x8xf32>, %sin3: tensor<1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %cos = poot.reshape %cos3 : tensor<1x4x8xf32> -> tensor<1x1x4x8xf32>
  %sin = poot.reshape %sin3 : tensor<1x4x8xf32> -> tensor<1x1x4x8xf32>
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %m1 = poot.constant dense<-1.0> : tensor<f32>
  %n = poot.mul %x2, %m1 : tensor<1x2x4x4xf32>, tensor<f32>
  %rot = poot.concat %n, %x1 {axis = -1 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %cos, %x : tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}
