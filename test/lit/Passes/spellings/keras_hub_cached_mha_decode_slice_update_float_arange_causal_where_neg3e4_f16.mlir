// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keras-Hub (keras-team/keras-hub at 71453d0,
// keras_hub/src/layers/modeling/cached_multi_head_attention.py,
// CachedMultiHeadAttention.call; the mask from transformer_decoder.py
// _compute_self_attention_mask -> transformer_layer_utils.compute_causal_mask)
// on one GPT-2 generate step (GPT2CausalLM.call_with_cache, no padding mask),
// run through Keras 3's MultiHeadAttention._compute_attention einsum path
// (keras/src/layers/attention/multi_head_attention.py: GPT-2's dropout 0.1
// keeps it off ops.dot_product_attention) with a float16 compute dtype.
// The cache [B, 2, S, N, H] is split into key_cache = cache[:, 0, ...] and
// value_cache = cache[:, 1, ...]; the new token's key and value are
// spliced in with ops.slice_update at [0, cache_update_index, 0, 0].
// compute_causal_mask: i = arange(T, float32) + cast(cache_index, float32)
// as a column, j = arange(S, float32), mask = expand_dims(i >= j, 0)
// broadcast to [B, T, S]. _compute_attention: query *= 1/sqrt(key_dim);
// scores = einsum('aecd,abcd->acbe', key, query); _masked_softmax expands
// the mask at the head axis; keras.layers.Softmax: where(mask, x,
// -3e4) (the f16 _large_negative_number), softmax(-1), then where(mask,
// probs, 0); out = einsum('acbe,aecd->abcd', probs, value). B = 2, T = 1,
// S = 8, N = 4, H = 16, cache_update_index in [0, 8). The EinsumDense
// projections are outside (their outputs are the inputs).
//
// Strongest form: key t is visible iff t <= cache_update_index (the f32
// arange compare is exact at these sizes); key 0 always is, so the
// where-fill and the post-softmax where change nothing: one fused op over
// the updated caches with pos(cache_update_index), causal, scale 1/4.

// CHECK-LABEL: func.func @keras_hub_cached_mha_decode_slice_update_float_arange_causal_where_neg3e4_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i32>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal from pos
func.func @keras_hub_cached_mha_decode_slice_update_float_arange_causal_where_neg3e4_f16(
    %query: tensor<2x1x4x16xf16>, %key_update: tensor<2x1x4x16xf16>,
    %value_update: tensor<2x1x4x16xf16>, %cache: tensor<2x2x8x4x16xf16>,
    %cache_update_index: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<2x1x4x16xf16> {
  // key_cache = cache[:, 0, ...]; value_cache = cache[:, 1, ...]
  %kc5 = poot.slice %cache {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 2, 1, 8, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x2x8x4x16xf16>
  %vc5 = poot.slice %cache {start = array<i64: 0, 1, 0, 0, 0>, limit = array<i64: 2, 2, 8, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x2x8x4x16xf16>
  %key_cache = poot.reshape %kc5 : tensor<2x1x8x4x16xf16> -> tensor<2x8x4x16xf16>
  %value_cache = poot.reshape %vc5 : tensor<2x1x8x4x16xf16> -> tensor<2x8x4x16xf16>
  // ops.slice_update(cache, [0, cache_update_index, 0, 0], update)
  %z = poot.constant dense<0> : tensor<i32>
  %key = poot.dynamic_update_slice %key_cache[%z, %cache_update_index, %z, %z], %key_update : tensor<2x8x4x16xf16>, tensor<2x1x4x16xf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %value = poot.dynamic_update_slice %value_cache[%z, %cache_update_index, %z, %z], %value_update : tensor<2x8x4x16xf16>, tensor<2x1x4x16xf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  // compute_causal_mask(batch_size, input_length=8, output_length=1, cache_index)
  %i0 = poot.iota {dim = 0 : i64} : tensor<1xf32>
  %ci = poot.convert %cache_update_index : tensor<i32> -> tensor<f32>
  %i1 = poot.add %i0, %ci : tensor<1xf32>, tensor<f32>
  %i = poot.reshape %i1 : tensor<1xf32> -> tensor<1x1xf32>
  %j0 = poot.iota {dim = 0 : i64} : tensor<8xf32>
  %j = poot.reshape %j0 : tensor<8xf32> -> tensor<1x8xf32>
  %ge = poot.compare ge, %i, %j : tensor<1x1xf32>, tensor<1x8xf32>
  %ge3 = poot.reshape %ge : tensor<1x8xi1> -> tensor<1x1x8xi1>
  %cmask = poot.broadcast %ge3 {shape = array<i64: 2, 1, 8>} : tensor<1x1x8xi1>
  // query = ops.multiply(query, ops.cast(self._inverse_sqrt_key_dim, query.dtype))
  %isq = poot.constant dense<0.25> : tensor<f16>
  %qs = poot.mul %query, %isq : tensor<2x1x4x16xf16>, tensor<f16>
  // attention_scores = ops.einsum('aecd,abcd->acbe', key, query)
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x16xf16>
  %kh = poot.transpose %key {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x4x16xf16>
  %scores = poot.matmul %qh, %kh : tensor<2x4x1x16xf16>, tensor<2x4x16x8xf16>
  // _masked_softmax: expand_dims(mask, axis=-3); Softmax.call
  %mask = poot.reshape %cmask : tensor<2x1x8xi1> -> tensor<2x1x1x8xi1>
  %neg = poot.constant dense<-3.0e+04> : tensor<f16>
  %x = poot.select %mask, %scores, %neg : tensor<2x1x1x8xi1>, tensor<2x4x1x8xf16>, tensor<f16>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x1x8xf16>
  %d = poot.sub %x, %mx : tensor<2x4x1x8xf16>, tensor<2x4x1x1xf16>
  %e = poot.exp %d : tensor<2x4x1x8xf16>
  %s = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x1x8xf16>
  %p = poot.div %e, %s : tensor<2x4x1x8xf16>, tensor<2x4x1x1xf16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %pm = poot.select %mask, %p, %zero : tensor<2x1x1x8xi1>, tensor<2x4x1x8xf16>, tensor<f16>
  // attention_output = ops.einsum('acbe,aecd->abcd', final_attn_scores, value)
  %vh = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf16>
  %o = poot.matmul %pm, %vh : tensor<2x4x1x8xf16>, tensor<2x4x8x16xf16>
  %out = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x16xf16>
  return %out : tensor<2x1x4x16xf16>
}
