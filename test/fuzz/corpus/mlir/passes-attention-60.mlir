func.func @positions_batch(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
                           %pos: tensor<3xi32> {poot.slot = "pos", poot.range = array<i64: 0, 8>}) -> tensor<3x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<3xi32> -> tensor<3x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<3x1x1x1xi32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %s : tensor<3x1x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<3x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<3x2x1x8xf32>, tensor<3x2x1x1xf32>
  %e = poot.exp %d : tensor<3x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<3x2x1x8xf32>
  %p = poot.div %e, %z : tensor<3x2x1x8xf32>, tensor<3x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<3x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<3x2x1x16xf32>
}
