func.func @jax_einsum_bshd(%q: tensor<1x6x4x40xf32>, %k: tensor<1x6x4x40xf32>,
                           %v: tensor<1x6x4x40xf32>) -> tensor<1x6x4x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<1x6x4x40xf32>, tensor<f32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x40xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x6x4x40xf32>
  %s = poot.matmul %qh, %kt : tensor<1x4x6x40xf32>, tensor<1x4x40x6xf32>
  %row = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %col = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %tril = poot.compare ge, %row, %col : tensor<6x6xi32>, tensor<6x6xi32>
  %mask = poot.reshape %tril : tensor<6x6xi1> -> tensor<1x1x6x6xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %mask, %s, %ninf : tensor<1x1x6x6xi1>, tensor<1x4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %sm, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x40xf32>
  %oh = poot.matmul %p, %vh : tensor<1x4x6x6xf32>, tensor<1x4x6x40xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x40xf32>
  return %o : tensor<1x6x4x40xf32>
}
