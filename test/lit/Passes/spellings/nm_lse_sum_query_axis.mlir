// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, JAX: jnp.exp(jax.nn.log_softmax(s, axis=-1)) hand-expanded
// with the log-sum-exp summed over the wrong axis (the query rows): the
// exp is normalised over columns, not rows. Declined; runs unfused.
// MHA, B = 1, H = 2, L = 5, D = 16.

// CHECK-LABEL: func.func @nm_lse_sum_query_axis
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_lse_sum_query_axis(%q: tensor<1x2x5x16xf32>, %k: tensor<1x2x5x16xf32>,
                                 %v: tensor<1x2x5x16xf32>) -> tensor<1x2x5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %shifted = poot.sub %s, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %shifted : tensor<1x2x5x5xf32>
  // EXPLAIN: remark: attention declined: 'poot.reduce_sum' at line [[#@LINE+1]] in the log-sum-exp sums over axis 2, expected the key axis 3{{$}}
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x2x5x5xf32>
  %l = poot.log %z : tensor<1x2x1x5xf32>
  %ls = poot.sub %shifted, %l : tensor<1x2x5x5xf32>, tensor<1x2x1x5xf32>
  %p = poot.exp %ls : tensor<1x2x5x5xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  return %o : tensor<1x2x5x16xf32>
}
