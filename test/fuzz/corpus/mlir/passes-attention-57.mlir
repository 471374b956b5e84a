func.func @repeats_differ(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x1x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %kr5 = poot.reshape %k : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %krb = poot.broadcast %kr5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xf32>
  %kr = poot.reshape %krb : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xf32>, tensor<1x4x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x1x8xf32>, tensor<1x1x8x16xf32>
  return %o : tensor<1x4x1x16xf32>
}
