func.func @live_key_only(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                         %len: tensor<2xi32> {poot.slot = "len", poot.range = array<i64: 1, 9>}) -> tensor<2x2x1x16xf32> {
  %len4 = poot.reshape %len : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %vis = poot.compare lt, %col, %len4 : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}
