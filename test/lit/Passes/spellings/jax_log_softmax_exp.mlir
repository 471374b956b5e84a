// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX: jnp.exp(jax.nn.log_softmax(s)) on scores masked Flax-style with
// jnp.where(mask, s, finfo(f32).min). log_softmax is traced as
// shifted = s - stop_gradient(max(s)), shifted - log(sum(exp(shifted))).
// The mask is causal (iotas), so the finite fill stands for -inf.
// MHA, B = 2, H = 2, L = 5, D = 24.

// CHECK-LABEL: func.func @jax_log_softmax_exp
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x5x24xf32>, %[[K:[^:]+]]: tensor<2x2x5x24xf32>, %[[V:[^:]+]]: tensor<2x2x5x24xf32>
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 0.204124{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @jax_log_softmax_exp(%q: tensor<2x2x5x24xf32>, %k: tensor<2x2x5x24xf32>,
                               %v: tensor<2x2x5x24xf32>) -> tensor<2x2x5x24xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x24xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x5x24xf32>, tensor<2x2x24x5xf32>
  %c = poot.constant dense<0.204124153> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x2x5x5xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi32>
  %mask = poot.compare le, %t, %i : tensor<5x5xi32>, tensor<5x5xi32>
  %min = poot.constant dense<-3.40282347e+38> : tensor<f32>
  %x = poot.select %mask, %s, %min : tensor<5x5xi1>, tensor<2x2x5x5xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = -1 : i64, keepdim} : tensor<2x2x5x5xf32>
  %shifted = poot.sub %x, %m : tensor<2x2x5x5xf32>, tensor<2x2x5x1xf32>
  %e = poot.exp %shifted : tensor<2x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x2x5x5xf32>
  %l = poot.log %z : tensor<2x2x5x1xf32>
  %ls = poot.sub %shifted, %l : tensor<2x2x5x5xf32>, tensor<2x2x5x1xf32>
  %p = poot.exp %ls : tensor<2x2x5x5xf32>
  %o = poot.matmul %p, %v : tensor<2x2x5x5xf32>, tensor<2x2x5x24xf32>
  return %o : tensor<2x2x5x24xf32>
}
