func.func @causal_tril_const(%q: tensor<2x2x6x64xf32>, %k: tensor<2x2x10x64xf32>,
                             %v: tensor<2x2x10x64xf32>) -> tensor<2x2x6x64xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %cm = poot.slice %bias {start = array<i64: 0, 0, 4, 0>, limit = array<i64: 1, 1, 10, 10>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x10x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x6x64xf32>, tensor<2x2x64x10xf32>
  %c = poot.constant dense<8.0> : tensor<f32>
  %w = poot.div %s, %c : tensor<2x2x6x10xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %wm = poot.select %cm, %w, %ninf : tensor<1x1x6x10xi1>, tensor<2x2x6x10xf32>, tensor<f32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x2x6x10xf32>
  %d = poot.sub %wm, %m : tensor<2x2x6x10xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x10xf32>
  %p = poot.div %e, %z : tensor<2x2x6x10xf32>, tensor<2x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x6x10xf32>, tensor<2x2x10x64xf32>
  return %o : tensor<2x2x6x64xf32>
}
