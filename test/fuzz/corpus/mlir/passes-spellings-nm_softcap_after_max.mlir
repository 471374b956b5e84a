func.func @nm_softcap_after_max(%q: tensor<1x2x2x32xf32>, %k: tensor<1x2x7x32xf32>,
                                %v: tensor<1x2x7x32xf32>) -> tensor<1x2x2x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x2x32xf32>, tensor<1x2x32x7xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x2x7xf32>
  %d = poot.sub %s, %m : tensor<1x2x2x7xf32>, tensor<1x2x2x1xf32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %dc = poot.div %d, %cap : tensor<1x2x2x7xf32>, tensor<f32>
  %th = poot.tanh %dc : tensor<1x2x2x7xf32>
  %x = poot.mul %th, %cap : tensor<1x2x2x7xf32>, tensor<f32>
  %e = poot.exp %x : tensor<1x2x2x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x2x7xf32>
  %p = poot.div %e, %z : tensor<1x2x2x7xf32>, tensor<1x2x2x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x2x7xf32>, tensor<1x2x7x32xf32>
  return %o : tensor<1x2x2x32xf32>
}
