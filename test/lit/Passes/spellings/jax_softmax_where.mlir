// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX: jax.nn.softmax(s, where=mask) as traced:
//   x_max = jnp.max(s, where=mask, initial=-inf)  max(select(mask, s, -inf))
//   x_safe = jnp.where(mask, s, -inf)             a second, equal select
//   e = exp(x_safe - x_max); e / jnp.sum(e, where=mask)   sum(select(mask, e, 0))
//   jnp.where(mask, result, 0)                    a mask after the softmax
// The masked sum is the sum of e (e is 0 wherever the mask hides a key),
// and the last select changes only rows with no visible key; the mask is
// causal (iotas), so there are none. MHA, B = 1, H = 2, L = 6, D = 32.

// CHECK-LABEL: func.func @jax_softmax_where
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x6x32xf32>, %[[K:[^:]+]]: tensor<1x2x6x32xf32>, %[[V:[^:]+]]: tensor<1x2x6x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|select}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|select}}
// CHECK: return %[[O]]
func.func @jax_softmax_where(%q: tensor<1x2x6x32xf32>, %k: tensor<1x2x6x32xf32>,
                             %v: tensor<1x2x6x32xf32>) -> tensor<1x2x6x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x32xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x32xf32>, tensor<1x2x32x6xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %mask = poot.compare ge, %i, %t : tensor<6x6xi32>, tensor<6x6xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sel1 = poot.select %mask, %s, %ninf : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %xmax = poot.reduce_max %sel1 {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %xsafe = poot.select %mask, %s, %ninf : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %d = poot.sub %xsafe, %xmax : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %em = poot.select %mask, %e, %zero : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %z = poot.reduce_sum %em {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %r = poot.div %e, %z : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %p = poot.select %mask, %r, %zero : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x32xf32>
  return %o : tensor<1x2x6x32xf32>
}
