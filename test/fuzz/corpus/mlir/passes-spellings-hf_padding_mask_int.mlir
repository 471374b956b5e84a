func.func @hf_padding_mask_int(%q: tensor<2x2x4x64xf32>, %k: tensor<2x2x16x64xf32>,
                               %v: tensor<2x2x16x64xf32>,
                               %am: tensor<2x16xi64> {poot.range = array<i64: 0, 2>})
    -> tensor<2x2x4x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x64xf32>, tensor<2x2x64x16xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x4x16xf32>, tensor<f32>
  %am4 = poot.reshape %am : tensor<2x16xi64> -> tensor<2x1x1x16xi64>
  %zero = poot.constant dense<0> : tensor<i64>
  %hid = poot.compare eq, %am4, %zero : tensor<2x1x1x16xi64>, tensor<i64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<2x1x1x16xi1>, tensor<f32>, tensor<2x2x4x16xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x4x16xf32>
  %d = poot.sub %sm, %m : tensor<2x2x4x16xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x16xf32>
  %p = poot.div %e, %z : tensor<2x2x4x16xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x16xf32>, tensor<2x2x16x64xf32>
  return %o : tensor<2x2x4x64xf32>
}
