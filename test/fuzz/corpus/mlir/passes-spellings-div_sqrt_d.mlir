func.func @div_sqrt_d(%q: tensor<2x4x3x96xf32>, %k: tensor<2x4x16x96xf32>,
                      %v: tensor<2x4x16x96xf32>, %pad: tensor<2x1x1x16xi1>)
    -> tensor<2x4x3x96xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x3x96xf32>, tensor<2x4x96x16xf32>
  %c = poot.constant dense<9.79795933> : tensor<f32>
  %cb = poot.broadcast %c {shape = array<i64: 2, 4, 3, 16>} : tensor<f32>
  %w = poot.div %s, %cb : tensor<2x4x3x16xf32>, tensor<2x4x3x16xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %wm = poot.select %pad, %ninf, %w : tensor<2x1x1x16xi1>, tensor<f32>, tensor<2x4x3x16xf32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x4x3x16xf32>
  %d = poot.sub %wm, %m : tensor<2x4x3x16xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x16xf32>
  %p = poot.div %e, %z : tensor<2x4x3x16xf32>, tensor<2x4x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x3x16xf32>, tensor<2x4x16x96xf32>
  return %o : tensor<2x4x3x96xf32>
}
