func.func @jax_softmax_where(%q: tensor<1x2x6x32xf32>, %k: tensor<1x2x6x32xf32>,
                             %v: tensor<1x2x6x32xf32>) -> tensor<1x2x6x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x32xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x32xf32>, tensor<1x2x32x6xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %mask = poot.compare ge, %i, %t : tensor<6x6xi32>, tensor<6x6xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sel1 = poot.select %mask, %s, %ninf : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %xmax = poot.reduce_max %sel1 {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %xsafe = poot.select %mask, %s, %ninf : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %d = poot.sub %xsafe, %xmax : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %em = poot.select %mask, %e, %zero : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %z = poot.reduce_sum %em {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %r = poot.div %e, %z : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %p = poot.select %mask, %r, %zero : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x32xf32>
  return %o : tensor<1x2x6x32xf32>
}
