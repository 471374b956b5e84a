// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// patrick-kidger/equinox equinox/nn/_attention.py (MultiheadAttention
// .__call__ with dot_product_attention / dot_product_attention_weights),
// bf16, unbatched as Equinox modules are: the projections are [S, H, D];
// the per-head function is jax.vmap'd over the head axis (in_axes=1,
// out_axes=1), so its einsums become dot_generals with the heads as batch
// dim: query / jnp.sqrt(D), einsum('sd,Sd->sS'), jnp.where(mask, logits,
// finfo(bf16).min) with the user's causal mask jnp.tril(jnp.ones((S, S),
// bool)) (tri by iota compare, where against zeros), softmax after
// astype(result_type(bf16, f32)) and back to bf16, einsum('sS,Sd->sd'),
// reshape(S, -1). S = 6, H = 4, D = 16.

// CHECK-LABEL: func.func @equinox_mha_vmap_heads_unbatched_where_finfo_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{.*}}
func.func @equinox_mha_vmap_heads_unbatched_where_finfo_bf16(
    %qh: tensor<6x4x16xbf16>, %kh: tensor<6x4x16xbf16>, %vh: tensor<6x4x16xbf16>) -> tensor<6x64xbf16> {
  // mask = jnp.tril(jnp.ones((6, 6), bool))
  %ri = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %tri = poot.compare ge, %ri, %ci : tensor<6x6xi32>, tensor<6x6xi32>
  %ones = poot.constant dense<true> : tensor<6x6xi1>
  %zeros = poot.constant dense<false> : tensor<i1>
  %mask = poot.select %tri, %ones, %zeros : tensor<6x6xi1>, tensor<6x6xi1>, tensor<i1>
  // query / sqrt(D), vmapped over axis 1
  %sq = poot.constant dense<4.0> : tensor<bf16>
  %qd = poot.div %qh, %sq : tensor<6x4x16xbf16>, tensor<bf16>
  %qb = poot.transpose %qd {perm = array<i64: 1, 0, 2>} : tensor<6x4x16xbf16>
  %kb = poot.transpose %kh {perm = array<i64: 1, 2, 0>} : tensor<6x4x16xbf16>
  %logits = poot.matmul %qb, %kb : tensor<4x6x16xbf16>, tensor<4x16x6xbf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %lm = poot.select %mask, %logits, %min : tensor<6x6xi1>, tensor<4x6x6xbf16>, tensor<bf16>
  %lf = poot.convert %lm : tensor<4x6x6xbf16> -> tensor<4x6x6xf32>
  %mx = poot.reduce_max %lf {axis = 2 : i64, keepdim} : tensor<4x6x6xf32>
  %d = poot.sub %lf, %mx : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %e = poot.exp %d : tensor<4x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x6x6xf32>
  %wf = poot.div %e, %zs : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %w = poot.convert %wf : tensor<4x6x6xf32> -> tensor<4x6x6xbf16>
  %vb = poot.transpose %vh {perm = array<i64: 1, 0, 2>} : tensor<6x4x16xbf16>
  %a = poot.matmul %w, %vb : tensor<4x6x6xbf16>, tensor<4x6x16xbf16>
  %at = poot.transpose %a {perm = array<i64: 1, 0, 2>} : tensor<4x6x16xbf16>
  %out = poot.reshape %at : tensor<6x4x16xbf16> -> tensor<6x64xbf16>
  return %out : tensor<6x64xbf16>
}
