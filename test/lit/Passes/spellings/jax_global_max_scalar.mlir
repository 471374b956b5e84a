// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX, a stabiliser over the whole tensor: e = jnp.exp(s - s.max()) (no
// axis: one max of every score, traced as a reduction per axis down to a
// scalar), e / e.sum(-1, keepdims=True). A scalar is constant along every
// row. MHA, B = 2, H = 2, Lq = 3, Lk = 5, D = 16.

// CHECK-LABEL: func.func @jax_global_max_scalar
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x3x16xf32>, %[[K:[^:]+]]: tensor<2x2x5x16xf32>, %[[V:[^:]+]]: tensor<2x2x5x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @jax_global_max_scalar(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x5x16xf32>,
                                 %v: tensor<2x2x5x16xf32>) -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x2x3x5xf32>, tensor<f32>
  %m3 = poot.reduce_max %s {axis = 3 : i64} : tensor<2x2x3x5xf32>
  %m2 = poot.reduce_max %m3 {axis = 2 : i64} : tensor<2x2x3xf32>
  %m1 = poot.reduce_max %m2 {axis = 1 : i64} : tensor<2x2xf32>
  %m = poot.reduce_max %m1 {axis = 0 : i64} : tensor<2xf32>
  %d = poot.sub %s, %m : tensor<2x2x3x5xf32>, tensor<f32>
  %e = poot.exp %d : tensor<2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x5xf32>, tensor<2x2x5x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
