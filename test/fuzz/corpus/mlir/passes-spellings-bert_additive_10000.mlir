func.func @bert_additive_10000(%q: tensor<1x4x8x64xf32>, %k: tensor<1x4x8x64xf32>,
                               %v: tensor<1x4x8x64xf32>) -> tensor<1x4x8x64xf32> {
  %keep = poot.constant dense<[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]> : tensor<8x8xi1>
  %keepf = poot.convert %keep : tensor<8x8xi1> -> tensor<8x8xf32>
  %keep4 = poot.reshape %keepf : tensor<8x8xf32> -> tensor<1x1x8x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %keep4 : tensor<f32>, tensor<1x1x8x8xf32>
  %big = poot.constant dense<-1.0e+04> : tensor<f32>
  %mask = poot.mul %inv, %big : tensor<1x1x8x8xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x64xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x8x64xf32>, tensor<1x4x64x8xf32>
  %c = poot.constant dense<8.0> : tensor<f32>
  %ss = poot.div %s, %c : tensor<1x4x8x8xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<1x4x8x8xf32>
  %d = poot.sub %sm, %m : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %e = poot.exp %d : tensor<1x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<1x4x8x8xf32>
  %p = poot.div %e, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x8x8xf32>, tensor<1x4x8x64xf32>
  return %o : tensor<1x4x8x64xf32>
}
