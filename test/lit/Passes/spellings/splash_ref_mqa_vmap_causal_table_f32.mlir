// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The reference of JAX's splash attention kernel for multi-query
// attention: jax.vmap(_attention_reference, in_axes=(0, None, None, ...))
// maps the single-head reference over the query heads only, so q is
// [H, S, D] against one k and v [T, D] of rank 2: logits =
// einsum('sd,td->st', q, k) (no scale: the caller scales q), logits =
// where(mask, logits, DEFAULT_MASK_VALUE = -0.7 * finfo(f32).max) with the
// mask a numpy causal table from CausalMask, m = logits.max(-1), s =
// exp(logits - m[..., None]), s / s.sum(-1)[..., None], einsum('st,td->sd').
// H = 4, S = T = 6, D = 32.

// Fused in the strongest form: poot-canonicalize gives the rank-2 keys
// and values the leading unit dim numpy broadcasting puts there (k^T as a
// transpose of k viewed [1, T, D]), so the one key head is shared by the
// four query heads: n_rep 4, the table read as causal.

// CHECK-LABEL: func.func @splash_ref_mqa_vmap_causal_table_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 4 : i64, scale = 1.000000e+00 : f64} : tensor<1x4x6x32xf32>, tensor<1x1x6x32xf32>, tensor<1x1x6x32xf32> -> tensor<1x4x6x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 1, causal
func.func @splash_ref_mqa_vmap_causal_table_f32(%q: tensor<4x6x32xf32>, %k: tensor<6x32xf32>,
                                                %v: tensor<6x32xf32>) -> tensor<4x6x32xf32> {
  %mask = poot.constant dense<[[true, false, false, false, false, false], [true, true, false, false, false, false], [true, true, true, false, false, false], [true, true, true, true, false, false], [true, true, true, true, true, false], [true, true, true, true, true, true]]> : tensor<6x6xi1>
  %kt = poot.transpose %k {perm = array<i64: 1, 0>} : tensor<6x32xf32>
  %lg = poot.matmul %q, %kt : tensor<4x6x32xf32>, tensor<32x6xf32>
  %neg = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %pl = poot.select %mask, %lg, %neg : tensor<6x6xi1>, tensor<4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %pl {axis = 2 : i64} : tensor<4x6x6xf32>
  %m3 = poot.reshape %m : tensor<4x6xf32> -> tensor<4x6x1xf32>
  %d = poot.sub %pl, %m3 : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %e = poot.exp %d : tensor<4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64} : tensor<4x6x6xf32>
  %z3 = poot.reshape %z : tensor<4x6xf32> -> tensor<4x6x1xf32>
  %p = poot.div %e, %z3 : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %o = poot.matmul %p, %v : tensor<4x6x6xf32>, tensor<6x32xf32>
  return %o : tensor<4x6x32xf32>
}
