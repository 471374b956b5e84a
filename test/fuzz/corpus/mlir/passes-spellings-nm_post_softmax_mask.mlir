func.func @nm_post_softmax_mask(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x6x16xf32>,
                                %v: tensor<2x2x6x16xf32>, %keep: tensor<2x1x1x6xi1>)
    -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x6xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x3x6xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x2x3x6xf32>
  %d = poot.sub %ss, %m : tensor<2x2x3x6xf32>, tensor<2x2x3x1xf32>
  %e = poot.exp %d : tensor<2x2x3x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x6xf32>
  %p = poot.div %e, %z : tensor<2x2x3x6xf32>, tensor<2x2x3x1xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %pm = poot.select %keep, %p, %zero : tensor<2x1x1x6xi1>, tensor<2x2x3x6xf32>, tensor<f32>
  %o = poot.matmul %pm, %v : tensor<2x2x3x6xf32>, tensor<2x2x6x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
