// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// google/flax, examples/lm1b/models.py TransformerLM.__call__ (decode=False)
// with flax/linen/attention.py: decoder_mask = nn.combine_masks(
// nn.make_attention_mask(inputs > 0, inputs > 0, dtype=f32),
// nn.make_causal_mask(inputs, dtype=f32)), then
// MultiHeadDotProductAttention -> dot_product_attention ->
// dot_product_attention_weights (no bias, deterministic), f32, [b, l, h, d].
// make_attention_mask: pairwise_fn = jnp.multiply on the bool paddings
// (bitwise_and for bool) of expand_dims(q, -1) and expand_dims(k, -2),
// expand_dims(-3), astype(f32); make_causal_mask: idxs =
// broadcast_to(arange(l, int32), inputs.shape), make_attention_mask(idxs,
// idxs, jnp.greater_equal); combine_masks: jnp.logical_and of the two f32
// masks (each taken to bool as x != 0), astype(f32). In the weights: query
// / jnp.sqrt(depth).astype(f32); einsum('...qhd,...khd->...hqk') (a
// dot_general with batch (b, h): no transpose after);
// jnp.where(mask, w, finfo(f32).min) (the f32 mask as condition, != 0);
// jax.nn.softmax: jnp.max(x, -1, initial=-inf, keepdims=True) (reduce_max,
// lax.max(-inf, .), expand_dims), exp(x - x_max), / jnp.sum(.., keepdims),
// .astype(f32); einsum('...hqk,...khd->...qhd'). q, k, v are the
// DenseGeneral outputs. b = 2, l = 8, h = 4, d = 32; token ids in [0, 16),
// 0 the padding id.
//
// Strongest form: a row whose query is padding keeps no key (the graph
// averages all its keys through the finfo.min fill), so neither band nor
// length can be taken apart from the padding: poot.attention with the
// combined condition as a tensor mask, {n_rep = 1, scale = 1/sqrt(32)};
// no zero_empty_rows (those rows are averages, not 0).

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @flax_lm1b_combine_masks_padding_multiply_causal_greater_equal_astype_f32_where_ne0_finfo_min_softmax_initial_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x8x8xf32>) {n_rep = 1 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, tensor mask;
func.func @flax_lm1b_combine_masks_padding_multiply_causal_greater_equal_astype_f32_where_ne0_finfo_min_softmax_initial_f32(
    %query: tensor<2x8x4x32xf32>, %key: tensor<2x8x4x32xf32>, %value: tensor<2x8x4x32xf32>,
    %inputs: tensor<2x8xi32> {poot.name = "inputs", poot.range = array<i64: 0, 16>}) -> tensor<2x8x4x32xf32> {
  %c0i = poot.constant dense<0> : tensor<i32>
  %c0f = poot.constant dense<0.0> : tensor<f32>
  // nn.make_attention_mask(inputs > 0, inputs > 0, dtype=f32)
  %pad = poot.compare gt, %inputs, %c0i : tensor<2x8xi32>, tensor<i32>
  %pq = poot.reshape %pad : tensor<2x8xi1> -> tensor<2x8x1xi1>
  %pk = poot.reshape %pad : tensor<2x8xi1> -> tensor<2x1x8xi1>
  %pm = poot.and %pq, %pk : tensor<2x8x1xi1>, tensor<2x1x8xi1>
  %pm4 = poot.reshape %pm : tensor<2x8x8xi1> -> tensor<2x1x8x8xi1>
  %padding_mask = poot.convert %pm4 : tensor<2x1x8x8xi1> -> tensor<2x1x8x8xf32>
  // nn.make_causal_mask(inputs, dtype=f32)
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi32>
  %idxs = poot.broadcast %ar {shape = array<i64: 2, 8>} : tensor<8xi32>
  %iq = poot.reshape %idxs : tensor<2x8xi32> -> tensor<2x8x1xi32>
  %ik = poot.reshape %idxs : tensor<2x8xi32> -> tensor<2x1x8xi32>
  %ge = poot.compare ge, %iq, %ik : tensor<2x8x1xi32>, tensor<2x1x8xi32>
  %ge4 = poot.reshape %ge : tensor<2x8x8xi1> -> tensor<2x1x8x8xi1>
  %causal_mask = poot.convert %ge4 : tensor<2x1x8x8xi1> -> tensor<2x1x8x8xf32>
  // nn.combine_masks: jnp.logical_and(mask, other_mask).astype(f32)
  %b1 = poot.compare ne, %padding_mask, %c0f : tensor<2x1x8x8xf32>, tensor<f32>
  %b2 = poot.compare ne, %causal_mask, %c0f : tensor<2x1x8x8xf32>, tensor<f32>
  %both = poot.and %b1, %b2 : tensor<2x1x8x8xi1>, tensor<2x1x8x8xi1>
  %decoder_mask = poot.convert %both : tensor<2x1x8x8xi1> -> tensor<2x1x8x8xf32>
  // query = query / jnp.sqrt(depth).astype(dtype)
  %sqd = poot.constant dense<5.65685415> : tensor<f32>
  %qs = poot.div %query, %sqd : tensor<2x8x4x32xf32>, tensor<f32>
  // attn_weights = einsum('...qhd,...khd->...hqk', query, key)
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x32xf32>
  %kh = poot.transpose %key {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x4x32xf32>
  %w = poot.matmul %qh, %kh : tensor<2x4x8x32xf32>, tensor<2x4x32x8xf32>
  // big_neg = jnp.finfo(dtype).min; attn_weights = jnp.where(mask, attn_weights, big_neg)
  %cond = poot.compare ne, %decoder_mask, %c0f : tensor<2x1x8x8xf32>, tensor<f32>
  %big_neg = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %wm = poot.select %cond, %w, %big_neg : tensor<2x1x8x8xi1>, tensor<2x4x8x8xf32>, tensor<f32>
  // jax.nn.softmax(attn_weights): x_max = jnp.max(x, -1, initial=-inf, keepdims=True)
  %r = poot.reduce_max %wm {axis = 3 : i64} : tensor<2x4x8x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %rm = poot.max %ninf, %r : tensor<f32>, tensor<2x4x8xf32>
  %x_max = poot.reshape %rm : tensor<2x4x8xf32> -> tensor<2x4x8x1xf32>
  %sh = poot.sub %wm, %x_max : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %un = poot.exp %sh : tensor<2x4x8x8xf32>
  %zs = poot.reduce_sum %un {axis = 3 : i64} : tensor<2x4x8x8xf32>
  %z = poot.reshape %zs : tensor<2x4x8xf32> -> tensor<2x4x8x1xf32>
  %p = poot.div %un, %z : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  // einsum('...hqk,...khd->...qhd', attn_weights, value): dot_general batch (b, h), then to [b, q, h, d]
  %vh = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x32xf32>
  %o = poot.matmul %p, %vh : tensor<2x4x8x8xf32>, tensor<2x4x8x32xf32>
  %out = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x32xf32>
  return %out : tensor<2x8x4x32xf32>
}
