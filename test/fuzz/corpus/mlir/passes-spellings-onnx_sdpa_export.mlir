func.func @onnx_sdpa_export(%q: tensor<2x3x4x96xf32>, %k: tensor<2x3x10x96xf32>,
                            %v: tensor<2x3x10x96xf32>, %mask: tensor<4x10xf32>)
    -> tensor<2x3x4x96xf32> {
  %e = poot.constant dense<96> : tensor<i64>
  %ef = poot.convert %e : tensor<i64> -> tensor<f32>
  %sq = poot.sqrt %ef : tensor<f32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %scale = poot.div %one, %sq : tensor<f32>, tensor<f32>
  %sf = poot.sqrt %scale : tensor<f32>
  %qs = poot.mul %q, %sf : tensor<2x3x4x96xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x10x96xf32>
  %kts = poot.mul %kt, %sf : tensor<2x3x96x10xf32>, tensor<f32>
  %s = poot.matmul %qs, %kts : tensor<2x3x4x96xf32>, tensor<2x3x96x10xf32>
  %sm = poot.add %s, %mask : tensor<2x3x4x10xf32>, tensor<4x10xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x3x4x10xf32>
  %d = poot.sub %sm, %m : tensor<2x3x4x10xf32>, tensor<2x3x4x1xf32>
  %x = poot.exp %d : tensor<2x3x4x10xf32>
  %z = poot.reduce_sum %x {axis = 3 : i64, keepdim} : tensor<2x3x4x10xf32>
  %p = poot.div %x, %z : tensor<2x3x4x10xf32>, tensor<2x3x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x4x10xf32>, tensor<2x3x10x96xf32>
  return %o : tensor<2x3x4x96xf32>
}
