func.func @onnx_add_neg_max(%q: tensor<2x2x1x64xf32>, %k: tensor<2x2x9x64xf32>,
                            %v: tensor<2x2x9x64xf32>) -> tensor<2x2x1x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x9x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x64xf32>, tensor<2x2x64x9xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x9xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x2x1x9xf32>
  %nm = poot.neg %m : tensor<2x2x1x1xf32>
  %x = poot.add %ss, %nm : tensor<2x2x1x9xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %x : tensor<2x2x1x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %z : tensor<f32>, tensor<2x2x1x1xf32>
  %p = poot.mul %e, %r : tensor<2x2x1x9xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x9xf32>, tensor<2x2x9x64xf32>
  return %o : tensor<2x2x1x64xf32>
}
