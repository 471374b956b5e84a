func.func @torch_masked_fill_any_guard(%q: tensor<1x2x4x32xf32>, %k: tensor<1x2x16x32xf32>,
                                       %v: tensor<1x2x16x32xf32>,
                                       %pos: tensor<i32> {poot.range = array<i64: 0, 12>})
    -> tensor<1x2x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x16x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x32xf32>, tensor<1x2x32x16xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x16xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<4x16xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<4x16xi32>
  %qpos = poot.add %i, %pos : tensor<4x16xi32>, tensor<i32>
  %keep = poot.compare le, %t, %qpos : tensor<4x16xi32>, tensor<4x16xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<4x16xi1>, tensor<1x2x4x16xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %d = poot.sub %x, %m : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %p = poot.div %e, %z : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %kf = poot.convert %keep : tensor<4x16xi1> -> tensor<4x16xf32>
  %anyf = poot.reduce_max %kf {axis = 1 : i64, keepdim} : tensor<4x16xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %any = poot.compare gt, %anyf, %zero : tensor<4x1xf32>, tensor<f32>
  %none = poot.not %any : tensor<4x1xi1>
  %ps = poot.select %none, %zero, %p : tensor<4x1xi1>, tensor<f32>, tensor<1x2x4x16xf32>
  %o = poot.matmul %ps, %v : tensor<1x2x4x16xf32>, tensor<1x2x16x32xf32>
  return %o : tensor<1x2x4x32xf32>
}
