// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX, a hand-written softmax that scales both sides of the subtraction:
// jnp.exp(s / jnp.sqrt(d) - jax.lax.stop_gradient(s.max(-1, keepdims=True))
// / jnp.sqrt(d)). The max of s divided by a positive constant is the max of
// the scaled scores. GQA 4/1 (MQA by the matmul's broadcast), B = 1,
// Lq = 2, Lk = 6, D = 48.

// CHECK-LABEL: func.func @jax_scaled_max_subtracted
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x2x48xf32>, %[[K:[^:]+]]: tensor<1x1x6x48xf32>, %[[V:[^:]+]]: tensor<1x1x6x48xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 4 : i64, scale = 0.144337{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @jax_scaled_max_subtracted(%q: tensor<1x4x2x48xf32>, %k: tensor<1x1x6x48xf32>,
                                     %v: tensor<1x1x6x48xf32>) -> tensor<1x4x2x48xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x6x48xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x2x48xf32>, tensor<1x1x48x6xf32>
  %sq = poot.constant dense<6.92820311> : tensor<f32>
  %ss = poot.div %s, %sq : tensor<1x4x2x6xf32>, tensor<f32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x2x6xf32>
  %ms = poot.div %m, %sq : tensor<1x4x2x1xf32>, tensor<f32>
  %d = poot.sub %ss, %ms : tensor<1x4x2x6xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x6xf32>
  %p = poot.div %e, %z : tensor<1x4x2x6xf32>, tensor<1x4x2x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x2x6xf32>, tensor<1x1x6x48xf32>
  return %o : tensor<1x4x2x48xf32>
}
