func.func @sdpa_unbatched_mqa(%q: tensor<4x3x32xf32>, %k: tensor<1x10x32xf32>,
                              %v: tensor<1x10x32xf32>,
                              %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<4x3x32xf32> {
  %p3 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1xi32>
  %i = poot.iota {dim = 1 : i64} : tensor<1x3x1xi32>
  %qpos = poot.add %p3, %i : tensor<1x1x1xi32>, tensor<1x3x1xi32>
  %t = poot.iota {dim = 2 : i64} : tensor<1x1x10xi32>
  %hid = poot.compare gt, %t, %qpos : tensor<1x1x10xi32>, tensor<1x3x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<1x3x10xf32>
  %zero = poot.constant dense<0.0> : tensor<1x3x10xf32>
  %mask = poot.select %hid, %ninf, %zero : tensor<1x3x10xi1>, tensor<1x3x10xf32>, tensor<1x3x10xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<1x10x32xf32>
  %s = poot.matmul %q, %kt : tensor<4x3x32xf32>, tensor<1x32x10xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<4x3x10xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<4x3x10xf32>, tensor<1x3x10xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<4x3x10xf32>
  %d = poot.sub %sm, %m : tensor<4x3x10xf32>, tensor<4x3x1xf32>
  %e = poot.exp %d : tensor<4x3x10xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<4x3x10xf32>
  %p = poot.div %e, %z : tensor<4x3x10xf32>, tensor<4x3x1xf32>
  %o = poot.matmul %p, %v : tensor<4x3x10xf32>, tensor<1x10x32xf32>
  return %o : tensor<4x3x32xf32>
}
