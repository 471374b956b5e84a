// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Multi-query attention written as JAX einsums (PaLM / t5x style):
// jnp.einsum("bhqd,bkd->bhqk", q, k) with one key head. The exported
// dot_general has batch dim b and two free dims (h, q) on the query side,
// which the exporter merges into the rows: q [B, H, Lq, D] reshaped to
// [B, H*Lq, D] times k^T [B, D, Lk], the product reshaped back to
// [B, H, Lq, Lk]; rows are h * Lq + q. Scale 1/sqrt(D), a causal mask from
// broadcasted_iota applied with jnp.where(mask, s, -inf), jax.nn.softmax,
// then jnp.einsum("bhqk,bkd->bhqd", p, v) exported the same way.
// B = 2, H = 4, Lq = Lk = 6, D = 32.

// The mask varies along the inner factor Lq, so Lq stays the rows and the
// heads become the batch axis the one key head is broadcast over: n_rep 4.
// CHECK-LABEL: func.func @jax_mqa_dot_general_rows
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x6x32xf32>, %[[K:[^:]+]]: tensor<2x6x32xf32>, %[[V:[^:]+]]: tensor<2x6x32xf32>
// CHECK-DAG: %[[V4:.+]] = poot.reshape %[[V]] : tensor<2x6x32xf32> -> tensor<2x1x6x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %{{.+}}, %[[V4]] {causal, n_rep = 4 : i64, scale = 0.176776{{[0-9]+}} : f64} : tensor<2x4x6x32xf32>, tensor<2x1x6x32xf32>, tensor<2x1x6x32xf32> -> tensor<2x4x6x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.176777, causal{{$}}
func.func @jax_mqa_dot_general_rows(%q: tensor<2x4x6x32xf32>, %k: tensor<2x6x32xf32>,
                                    %v: tensor<2x6x32xf32>) -> tensor<2x4x6x32xf32> {
  %q3 = poot.reshape %q : tensor<2x4x6x32xf32> -> tensor<2x24x32xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x6x32xf32>
  %s3 = poot.matmul %q3, %kt : tensor<2x24x32xf32>, tensor<2x32x6xf32>
  %s = poot.reshape %s3 : tensor<2x24x6xf32> -> tensor<2x4x6x6xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x4x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %vis = poot.compare ge, %i, %t : tensor<6x6xi32>, tensor<6x6xi32>
  %vis4 = poot.reshape %vis : tensor<6x6xi1> -> tensor<1x1x6x6xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis4, %ss, %ninf : tensor<1x1x6x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %d = poot.sub %sm, %m : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %e = poot.exp %d : tensor<2x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %p = poot.div %e, %z : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %p3 = poot.reshape %p : tensor<2x4x6x6xf32> -> tensor<2x24x6xf32>
  %o3 = poot.matmul %p3, %v : tensor<2x24x6xf32>, tensor<2x6x32xf32>
  %o = poot.reshape %o3 : tensor<2x24x32xf32> -> tensor<2x4x6x32xf32>
  return %o : tensor<2x4x6x32xf32>
}
