func.func @window(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) pos(%pos : tensor<i32>) {causal, n_rep = 2 : i64, scale = 1.250000e-01 : f64, window = 8 : i64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}
