func.func @scale_on_k(%q: tensor<1x2x1x512xf32>, %k: tensor<1x2x8x512xf32>,
                      %v: tensor<1x2x8x512xf32>) -> tensor<1x2x1x512xf32> {
  %c = poot.constant dense<0.0441941731> : tensor<f32>
  %cb = poot.broadcast %c {shape = array<i64: 1, 2, 8, 512>} : tensor<f32>
  %ks = poot.mul %k, %cb : tensor<1x2x8x512xf32>, tensor<1x2x8x512xf32>
  %kt = poot.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x512xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x512xf32>, tensor<1x2x512x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x512xf32>
  return %o : tensor<1x2x1x512xf32>
}
