// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// jax-ml/jax 0.4.31-0.4.35, jax/_src/nn/functions.py:
// jax.nn.dot_product_attention(q, k, v, is_causal=True, implementation='xla')
// -> _dot_product_attention_xla -> _dot_product_attention_core, bf16, as its
// jaxpr spells it. query reshaped (B, T, K, G, H); logits =
// jnp.einsum('BTKGH,BSKH->BKGTS', q, k, preferred_element_type=f32): one
// dot_general with batch (B, K), contracting H, whose result is laid out
// (B, K, T, G, S) (batch, lhs free, rhs free) and then transposed to
// BKGTS; logits *= jnp.array(scale, f32) with scale = 1/sqrt(H);
// _apply_masks: combined_mask = jnp.ones_like(logits, bool); mask =
// jnp.tril(jnp.ones((T, S), bool)) (jnp.tril is lax.select(tri(T, S), m,
// zeros_like(m)), tri = iota(0) + 0 >= iota(1)); jnp.logical_and;
// jnp.where(combined_mask, logits, _get_large_negative(f32)) =
// -0.7 * finfo(f32).max; .astype(f32); jax.nn.softmax (_softmax:
// jnp.max(x, -1, initial=-inf, keepdims=True) = expand_dims(lax.max(-inf,
// reduce_max(x))), exp(x - x_max), / jnp.sum(.., keepdims=True))
// .astype(bf16); jnp.einsum('BKGTS,BSKH->BTKGH', probs, v): dot_general
// batch (B, K), result (B, K, G, T, H), transposed to BTKGH; reshape
// (B, T, N, H). B = 2, T = S = 7, N = 8 query heads over K = 2 key/value
// heads (G = 4), H = 16 (scale 0.25).
//
// Strongest form: poot.attention {causal, n_rep = 4, scale = 0.25}: the
// tril keeps each row's diagonal and -0.7 * f32 max hides keys; no tensor
// mask.

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @jax_dpa_xla_dot_general_btkg_rows_ones_like_and_tril_select_neg07_f32max_softmax_initial_gqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal{{$}}
func.func @jax_dpa_xla_dot_general_btkg_rows_ones_like_and_tril_select_neg07_f32max_softmax_initial_gqa_bf16(
    %query: tensor<2x7x8x16xbf16>, %key: tensor<2x7x2x16xbf16>, %value: tensor<2x7x2x16xbf16>)
    -> tensor<2x7x8x16xbf16> {
  // query = jnp.reshape(query, (B, T, K, G, H))
  %q5 = poot.reshape %query : tensor<2x7x8x16xbf16> -> tensor<2x7x2x4x16xbf16>
  // einsum('BTKGH,BSKH->BKGTS', preferred_element_type=f32): dot_general -> (B, K, T, G, S), transpose
  %qf = poot.convert %q5 : tensor<2x7x2x4x16xbf16> -> tensor<2x7x2x4x16xf32>
  %kf = poot.convert %key : tensor<2x7x2x16xbf16> -> tensor<2x7x2x16xf32>
  %qb = poot.transpose %qf {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<2x7x2x4x16xf32>
  %qr = poot.reshape %qb : tensor<2x2x7x4x16xf32> -> tensor<2x2x28x16xf32>
  %kb = poot.transpose %kf {perm = array<i64: 0, 2, 3, 1>} : tensor<2x7x2x16xf32>
  %dg = poot.matmul %qr, %kb : tensor<2x2x28x16xf32>, tensor<2x2x16x7xf32>
  %dg5 = poot.reshape %dg : tensor<2x2x28x7xf32> -> tensor<2x2x7x4x7xf32>
  %logits0 = poot.transpose %dg5 {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<2x2x7x4x7xf32>
  // logits *= jnp.array(scale, dtype=logits.dtype)
  %scale = poot.constant dense<0.25> : tensor<f32>
  %logits = poot.mul %logits0, %scale : tensor<2x2x4x7x7xf32>, tensor<f32>
  // _apply_masks: combined_mask = jnp.ones_like(logits, dtype=bool)
  %combined0 = poot.constant dense<true> : tensor<2x2x4x7x7xi1>
  // jnp.tril(jnp.ones((T, S), dtype=bool))
  %ones = poot.constant dense<true> : tensor<7x7xi1>
  %zeros = poot.constant dense<false> : tensor<7x7xi1>
  %r = poot.iota {dim = 0 : i64} : tensor<7x7xi32>
  %k0 = poot.constant dense<0> : tensor<i32>
  %rk = poot.add %r, %k0 : tensor<7x7xi32>, tensor<i32>
  %c = poot.iota {dim = 1 : i64} : tensor<7x7xi32>
  %tri = poot.compare ge, %rk, %c : tensor<7x7xi32>, tensor<7x7xi32>
  %tril = poot.select %tri, %ones, %zeros : tensor<7x7xi1>, tensor<7x7xi1>, tensor<7x7xi1>
  // combined_mask = jnp.logical_and(combined_mask, mask)
  %combined = poot.and %combined0, %tril : tensor<2x2x4x7x7xi1>, tensor<7x7xi1>
  // jnp.where(combined_mask, logits, _get_large_negative(logits.dtype))
  %large_negative = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %padded = poot.select %combined, %logits, %large_negative : tensor<2x2x4x7x7xi1>, tensor<2x2x4x7x7xf32>, tensor<f32>
  // jax.nn.softmax(padded_logits.astype(jnp.float32), axis=-1)
  %rmax = poot.reduce_max %padded {axis = 4 : i64} : tensor<2x2x4x7x7xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %rmi = poot.max %ninf, %rmax : tensor<f32>, tensor<2x2x4x7xf32>
  %x_max = poot.reshape %rmi : tensor<2x2x4x7xf32> -> tensor<2x2x4x7x1xf32>
  %sh = poot.sub %padded, %x_max : tensor<2x2x4x7x7xf32>, tensor<2x2x4x7x1xf32>
  %un = poot.exp %sh : tensor<2x2x4x7x7xf32>
  %zs = poot.reduce_sum %un {axis = 4 : i64} : tensor<2x2x4x7x7xf32>
  %z = poot.reshape %zs : tensor<2x2x4x7xf32> -> tensor<2x2x4x7x1xf32>
  %p = poot.div %un, %z : tensor<2x2x4x7x7xf32>, tensor<2x2x4x7x1xf32>
  // .astype(key.dtype)
  %probs = poot.convert %p : tensor<2x2x4x7x7xf32> -> tensor<2x2x4x7x7xbf16>
  // einsum('BKGTS,BSKH->BTKGH'): dot_general -> (B, K, G, T, H), transpose to BTKGH
  %pr = poot.reshape %probs : tensor<2x2x4x7x7xbf16> -> tensor<2x2x28x7xbf16>
  %vb = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x2x16xbf16>
  %enc0 = poot.matmul %pr, %vb : tensor<2x2x28x7xbf16>, tensor<2x2x7x16xbf16>
  %enc5 = poot.reshape %enc0 : tensor<2x2x28x16xbf16> -> tensor<2x2x4x7x16xbf16>
  %encoded = poot.transpose %enc5 {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<2x2x4x7x16xbf16>
  // jnp.reshape(encoded, (B, T, N, H))
  %out = poot.reshape %encoded : tensor<2x7x2x4x16xbf16> -> tensor<2x7x8x16xbf16>
  return %out : tensor<2x7x8x16xbf16>
}
