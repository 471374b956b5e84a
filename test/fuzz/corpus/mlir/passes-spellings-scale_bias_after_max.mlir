func.func @scale_bias_after_max(%q: tensor<2x2x3x32xf32>, %k: tensor<2x2x5x32xf32>,
                                %v: tensor<2x2x5x32xf32>, %bias: tensor<1x2x3x5xf32>)
    -> tensor<2x2x3x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x32xf32>, tensor<2x2x32x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %d = poot.sub %s, %m : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ds = poot.mul %d, %c : tensor<2x2x3x5xf32>, tensor<f32>
  %x = poot.add %ds, %bias : tensor<2x2x3x5xf32>, tensor<1x2x3x5xf32>
  %e = poot.exp %x : tensor<2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x5xf32>, tensor<2x2x5x32xf32>
  return %o : tensor<2x2x3x32xf32>
}
