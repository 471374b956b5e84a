func.func @nan_guard(%q: tensor<2x2x8x40xf32>, %k: tensor<2x2x3x40xf32>,
                     %v: tensor<2x2x3x40xf32>, %keep: tensor<2x1x8x3xi1>)
    -> tensor<2x2x8x40xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x3x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x8x40xf32>, tensor<2x2x40x3xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x8x3xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %ss, %ninf : tensor<2x1x8x3xi1>, tensor<2x2x8x3xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x8x3xf32>
  %d = poot.sub %sm, %m : tensor<2x2x8x3xf32>, tensor<2x2x8x1xf32>
  %e = poot.exp %d : tensor<2x2x8x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x8x3xf32>
  %p = poot.div %e, %z : tensor<2x2x8x3xf32>, tensor<2x2x8x1xf32>
  %isnan = poot.compare ne, %p, %p : tensor<2x2x8x3xf32>, tensor<2x2x8x3xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %pg = poot.select %isnan, %zero, %p : tensor<2x2x8x3xi1>, tensor<f32>, tensor<2x2x8x3xf32>
  %o = poot.matmul %pg, %v : tensor<2x2x8x3xf32>, tensor<2x2x3x40xf32>
  return %o : tensor<2x2x8x40xf32>
}
