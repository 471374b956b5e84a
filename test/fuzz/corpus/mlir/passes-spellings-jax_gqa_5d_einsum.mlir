func.func @jax_gqa_5d_einsum(%q: tensor<2x5x6x40xf32>, %k: tensor<2x5x2x40xf32>,
                             %v: tensor<2x5x2x40xf32>) -> tensor<2x5x6x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<2x5x6x40xf32>, tensor<f32>
  %qg = poot.reshape %qs : tensor<2x5x6x40xf32> -> tensor<2x5x2x3x40xf32>
  %qh = poot.transpose %qg {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<2x5x2x3x40xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x5x2x40xf32>
  %kg = poot.reshape %kt : tensor<2x2x40x5xf32> -> tensor<2x2x1x40x5xf32>
  %s = poot.matmul %qh, %kg : tensor<2x2x3x5x40xf32>, tensor<2x2x1x40x5xf32>
  %row = poot.iota {dim = 0 : i64} : tensor<5x5xi32>
  %col = poot.iota {dim = 1 : i64} : tensor<5x5xi32>
  %tril = poot.compare ge, %row, %col : tensor<5x5xi32>, tensor<5x5xi32>
  %mask = poot.reshape %tril : tensor<5x5xi1> -> tensor<1x1x1x5x5xi1>
  %big = poot.constant dense<-2.38197633e+38> : tensor<f32>
  %sm = poot.select %mask, %s, %big : tensor<1x1x1x5x5xi1>, tensor<2x2x3x5x5xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 4 : i64, keepdim} : tensor<2x2x3x5x5xf32>
  %d = poot.sub %sm, %m : tensor<2x2x3x5x5xf32>, tensor<2x2x3x5x1xf32>
  %e = poot.exp %d : tensor<2x2x3x5x5xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<2x2x3x5x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5x5xf32>, tensor<2x2x3x5x1xf32>
  %vg = poot.reshape %v : tensor<2x5x2x40xf32> -> tensor<2x5x2x1x40xf32>
  %vh = poot.transpose %vg {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<2x5x2x1x40xf32>
  %og = poot.matmul %p, %vh : tensor<2x2x3x5x5xf32>, tensor<2x2x1x5x40xf32>
  %ot = poot.transpose %og {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<2x2x3x5x40xf32>
  %o = poot.reshape %ot : tensor<2x5x2x3x40xf32> -> tensor<2x5x6x40xf32>
  return %o : tensor<2x5x6x40xf32>
}
