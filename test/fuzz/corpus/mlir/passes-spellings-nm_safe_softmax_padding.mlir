func.func @nm_safe_softmax_padding(%q: tensor<4x2x2x16xf32>, %k: tensor<4x2x3x16xf32>,
                                   %v: tensor<4x2x3x16xf32>, %keep: tensor<4x1x1x3xi1>)
    -> tensor<4x2x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x3x16xf32>
  %s = poot.matmul %q, %kt : tensor<4x2x2x16xf32>, tensor<4x2x16x3xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<4x2x2x3xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<4x1x1x3xi1>, tensor<4x2x2x3xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<4x2x2x3xf32>
  %d = poot.sub %x, %m : tensor<4x2x2x3xf32>, tensor<4x2x2x1xf32>
  %e = poot.exp %d : tensor<4x2x2x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x2x3xf32>
  %p = poot.div %e, %z : tensor<4x2x2x3xf32>, tensor<4x2x2x1xf32>
  %empty = poot.compare eq, %m, %ninf : tensor<4x2x2x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %empty, %zero, %p : tensor<4x2x2x1xi1>, tensor<f32>, tensor<4x2x2x3xf32>
  %o = poot.matmul %ps, %v : tensor<4x2x2x3xf32>, tensor<4x2x3x16xf32>
  return %o : tensor<4x2x2x16xf32>
}
