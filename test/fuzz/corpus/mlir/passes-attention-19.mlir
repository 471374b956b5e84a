func.func @causal_iota(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %i = poot.iota {dim = 0 : i64} : tensor<4x4xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<4x4xi32>
  %vis = poot.compare le, %t, %i : tensor<4x4xi32>, tensor<4x4xi32>
  %vis4 = poot.reshape %vis : tensor<4x4xi1> -> tensor<1x1x4x4xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis4, %ss, %ninf : tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}
