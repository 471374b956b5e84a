func.func @t5_unscaled_bias(%q: tensor<2x4x5x64xf32>, %k: tensor<2x4x6x64xf32>,
                            %v: tensor<2x4x6x64xf32>, %bias: tensor<1x4x5x6xf32>)
    -> tensor<2x4x5x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x5x64xf32>, tensor<2x4x64x6xf32>
  %sb = poot.add %s, %bias : tensor<2x4x5x6xf32>, tensor<1x4x5x6xf32>
  %m = poot.reduce_max %sb {axis = 3 : i64, keepdim} : tensor<2x4x5x6xf32>
  %mb = poot.broadcast %m {shape = array<i64: 2, 4, 5, 6>} : tensor<2x4x5x1xf32>
  %d = poot.sub %sb, %mb : tensor<2x4x5x6xf32>, tensor<2x4x5x6xf32>
  %e = poot.exp %d : tensor<2x4x5x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x6xf32>
  %zb = poot.broadcast %z {shape = array<i64: 2, 4, 5, 6>} : tensor<2x4x5x1xf32>
  %p = poot.div %e, %zb : tensor<2x4x5x6xf32>, tensor<2x4x5x6xf32>
  %o = poot.matmul %p, %v : tensor<2x4x5x6xf32>, tensor<2x4x6x64xf32>
  return %o : tensor<2x4x5x64xf32>
}
