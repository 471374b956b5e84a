func.func @dk192_dv128(%q: tensor<2x4x3x192xf32>, %k: tensor<2x4x11x192xf32>,
                       %v: tensor<2x4x11x128xf32>, %mask: tensor<1x1x3x11xf32>)
    -> tensor<2x4x3x128xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x11x192xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x3x192xf32>, tensor<2x4x192x11xf32>
  %c = poot.constant dense<0.0721687824> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x4x3x11xf32>, tensor<f32>
  %sm = poot.add %mask, %ss : tensor<1x1x3x11xf32>, tensor<2x4x3x11xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x3x11xf32>
  %d = poot.sub %sm, %m : tensor<2x4x3x11xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x11xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x11xf32>
  %p = poot.div %e, %z : tensor<2x4x3x11xf32>, tensor<2x4x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x3x11xf32>, tensor<2x4x11x128xf32>
  return %o : tensor<2x4x3x128xf32>
}
