func.func @softmax_transposed_axis(%q: tensor<2x2x3x96xf32>, %k: tensor<2x2x10x96xf32>,
                                   %v: tensor<2x2x10x96xf32>) -> tensor<2x2x3x96xf32> {
  %qt = poot.transpose %q {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x3x96xf32>
  %s = poot.matmul %k, %qt : tensor<2x2x10x96xf32>, tensor<2x2x96x3xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x10x3xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 2 : i64, keepdim} : tensor<2x2x10x3xf32>
  %d = poot.sub %ss, %m : tensor<2x2x10x3xf32>, tensor<2x2x1x3xf32>
  %e = poot.exp %d : tensor<2x2x10x3xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x2x10x3xf32>
  %p = poot.div %e, %z : tensor<2x2x10x3xf32>, tensor<2x2x1x3xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x10x3xf32>
  %o = poot.matmul %pt, %v : tensor<2x2x3x10xf32>, tensor<2x2x10x96xf32>
  return %o : tensor<2x2x3x96xf32>
}
