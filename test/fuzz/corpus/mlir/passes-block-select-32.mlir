func.func @not_a_candidate(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %hidden, %ninf, %z : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}
