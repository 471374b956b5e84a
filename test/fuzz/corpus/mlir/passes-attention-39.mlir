func.func @finite_fill_unranged_pos(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
    %pos: tensor<i32>) -> tensor<1x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0e+04> : tensor<f32>
  %sm = poot.select %hid, %fill, %ss : tensor<1x1x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}
