func.func @masked_fill_1e9_prefill(%q: tensor<2x2x10x48xf32>, %k: tensor<2x2x10x48xf32>,
                                   %v: tensor<2x2x10x48xf32>) -> tensor<2x2x10x48xf32> {
  %i = poot.iota {dim = 0 : i64} : tensor<10x1xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<1x10xi32>
  %keep = poot.compare le, %t, %i : tensor<1x10xi32>, tensor<10x1xi32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x10x48xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x10x48xf32>, tensor<2x2x48x10xf32>
  %c = poot.constant dense<0.144337565> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x10x10xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0e+09> : tensor<f32>
  %sm = poot.select %keep, %ss, %fill : tensor<10x10xi1>, tensor<2x2x10x10xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x2x10x10xf32>
  %d = poot.sub %sm, %m : tensor<2x2x10x10xf32>, tensor<2x2x10x1xf32>
  %e = poot.exp %d : tensor<2x2x10x10xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x2x10x10xf32>
  %p = poot.div %e, %z : tensor<2x2x10x10xf32>, tensor<2x2x10x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x10x10xf32>, tensor<2x2x10x48xf32>
  return %o : tensor<2x2x10x48xf32>
}
