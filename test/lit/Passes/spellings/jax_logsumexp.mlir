// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX: jnp.exp(s - jax.nn.logsumexp(s, axis=-1, keepdims=True)), the
// query divided by sqrt(d) first. logsumexp is traced as
// m = stop_gradient(select(isfinite(max(s)), max(s), 0)) and
// log(sum(exp(s - m))) + m; isfinite as |m| != inf. No mask.
// MHA, B = 1, H = 4, Lq = 3, Lk = 9, D = 16.

// CHECK-LABEL: func.func @jax_logsumexp
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x3x16xf32>, %[[K:[^:]+]]: tensor<1x4x9x16xf32>, %[[V:[^:]+]]: tensor<1x4x9x16xf32>
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @jax_logsumexp(%q: tensor<1x4x3x16xf32>, %k: tensor<1x4x9x16xf32>,
                         %v: tensor<1x4x9x16xf32>) -> tensor<1x4x3x16xf32> {
  %four = poot.constant dense<4.0> : tensor<f32>
  %qs = poot.div %q, %four : tensor<1x4x3x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x9x16xf32>
  %s = poot.matmul %qs, %kt : tensor<1x4x3x16xf32>, tensor<1x4x16x9xf32>
  %amax = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x3x9xf32>
  %abs = poot.abs %amax : tensor<1x4x3x1xf32>
  %inf = poot.constant dense<0x7F800000> : tensor<f32>
  %finite = poot.compare ne, %abs, %inf : tensor<1x4x3x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %m = poot.select %finite, %amax, %zero : tensor<1x4x3x1xi1>, tensor<1x4x3x1xf32>, tensor<f32>
  %mb = poot.broadcast %m {shape = array<i64: 1, 4, 3, 9>} : tensor<1x4x3x1xf32>
  %d = poot.sub %s, %mb : tensor<1x4x3x9xf32>, tensor<1x4x3x9xf32>
  %e = poot.exp %d : tensor<1x4x3x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x9xf32>
  %l = poot.log %z : tensor<1x4x3x1xf32>
  %lse = poot.add %l, %m : tensor<1x4x3x1xf32>, tensor<1x4x3x1xf32>
  %ls = poot.sub %s, %lse : tensor<1x4x3x9xf32>, tensor<1x4x3x1xf32>
  %p = poot.exp %ls : tensor<1x4x3x9xf32>
  %o = poot.matmul %p, %v : tensor<1x4x3x9xf32>, tensor<1x4x9x16xf32>
  return %o : tensor<1x4x3x16xf32>
}
