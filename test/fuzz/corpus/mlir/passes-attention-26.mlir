func.func @not_normalised(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %e = poot.exp %s : tensor<1x2x1x8xf32>
  %half = poot.constant dense<5.0e-01> : tensor<f32>
  %p = poot.mul %e, %half : tensor<1x2x1x8xf32>, tensor<f32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}
