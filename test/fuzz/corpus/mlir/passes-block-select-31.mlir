func.func @causal_only(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %top0 = poot.reduce_max %top {axis = 3 : i64, keepdim} : tensor<1x1x1x2xi32>
  %nil = poot.sub %top0, %top0 : tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>
  %qpos2 = poot.add %qpos, %nil : tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>
  %le2 = poot.compare le, %t, %qpos2 : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %le2, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}
