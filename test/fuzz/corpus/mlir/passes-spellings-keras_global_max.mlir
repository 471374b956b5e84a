func.func @keras_global_max(%q: tensor<2x2x4x32xf32>, %k: tensor<2x2x8x32xf32>,
                            %v: tensor<2x2x8x32xf32>, %keep: tensor<2x1x1x8xi1>)
    -> tensor<2x2x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x32xf32>, tensor<2x2x32x8xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x4x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x4x8xf32>, tensor<f32>
  %m1 = poot.reduce_max %x {axis = -2 : i64, keepdim} : tensor<2x2x4x8xf32>
  %m = poot.reduce_max %m1 {axis = -1 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %x, %m : tensor<2x2x4x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x4x8xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x2x4x8xf32>
  %p = poot.div %e, %z : tensor<2x2x4x8xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x8xf32>, tensor<2x2x8x32xf32>
  return %o : tensor<2x2x4x32xf32>
}
