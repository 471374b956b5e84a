func.func @unbatched_repeat_kv(%q: tensor<8x5x16xf32>, %k: tensor<2x7x16xf32>,
                               %v: tensor<2x7x16xf32>) -> tensor<8x5x16xf32> {
  %k4 = poot.reshape %k : tensor<2x7x16xf32> -> tensor<2x1x7x16xf32>
  %kb = poot.broadcast %k4 {shape = array<i64: 2, 4, 7, 16>} : tensor<2x1x7x16xf32>
  %kr = poot.reshape %kb : tensor<2x4x7x16xf32> -> tensor<8x7x16xf32>
  %v4 = poot.reshape %v : tensor<2x7x16xf32> -> tensor<2x1x7x16xf32>
  %vb = poot.broadcast %v4 {shape = array<i64: 2, 4, 7, 16>} : tensor<2x1x7x16xf32>
  %vr = poot.reshape %vb : tensor<2x4x7x16xf32> -> tensor<8x7x16xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 2, 1>} : tensor<8x7x16xf32>
  %s = poot.matmul %q, %kt : tensor<8x5x16xf32>, tensor<8x16x7xf32>
  %c = poot.constant dense<4.0> : tensor<f32>
  %ss = poot.div %s, %c : tensor<8x5x7xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 2 : i64, keepdim} : tensor<8x5x7xf32>
  %d = poot.sub %ss, %m : tensor<8x5x7xf32>, tensor<8x5x1xf32>
  %e = poot.exp %d : tensor<8x5x7xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x5x7xf32>
  %p = poot.div %e, %z : tensor<8x5x7xf32>, tensor<8x5x1xf32>
  %o = poot.matmul %p, %vr : tensor<8x5x7xf32>, tensor<8x7x16xf32>
  return %o : tensor<8x5x16xf32>
}
