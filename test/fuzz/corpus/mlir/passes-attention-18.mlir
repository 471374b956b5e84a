func.func @window_pos(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                      %pos: tensor<2x1x1x1xi32> {poot.range = array<i64: 0, 8>}) -> tensor<2x2x1x16xf32> {
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %future = poot.compare gt, %t, %pos : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %back = poot.sub %pos, %t : tensor<2x1x1x1xi32>, tensor<1x1x1x8xi32>
  %w = poot.constant dense<3> : tensor<i32>
  %old = poot.compare ge, %back, %w : tensor<2x1x1x8xi32>, tensor<i32>
  %hid = poot.or %future, %old : tensor<2x1x1x8xi1>, tensor<2x1x1x8xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<2x1x1x8xi1>, tensor<f32>, tensor<2x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}
