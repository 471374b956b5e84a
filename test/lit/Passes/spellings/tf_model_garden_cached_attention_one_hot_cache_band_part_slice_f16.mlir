// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// TensorFlow Model Garden, padded (TPU) decoding under mixed_float16:
// official/nlp/modeling/models/seq2seq_transformer.py
// _get_symbols_to_logits_fn builds decoder_self_attention_mask =
// tf.linalg.band_part(tf.ones([S, S], f16), -1, 0) reshaped [1, S, S],
// takes tf.slice(mask, [0, i, 0], [1, 1, S]) at the loop index i and
// tiles it over the batch; official/nlp/modeling/layers/attention.py
// CachedAttention._update_cache with decode_loop_step: indices =
// reshape(one_hot(i, S), [1, S, 1, 1]); key = cache["key"] + key * indices
// (likewise value); attention_scores = einsum("aecd,abcd->acbe", key,
// query), lowered as an ONNX export does (Transpose + MatMul); multiply by
// 1 / sqrt(key_size) after the product; masked_softmax.MaskedSoftmax(
// mask_expansion_axes=[1]): expand_dims(mask, 1), adder = (1 - cast(mask))
// * _large_compatible_negative(f16) = float16.min, scores += adder,
// softmax; einsum("acbe,aecd->abcd", probs, value). Key t is visible from
// the new token iff t <= i: causal at position i. B = 2, S = 8, N = 2,
// H = 16, i in [0, 8).

// CHECK-LABEL: func.func @tf_model_garden_cached_attention_one_hot_cache_band_part_slice_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal from pos
func.func @tf_model_garden_cached_attention_one_hot_cache_band_part_slice_f16(
    %query: tensor<2x1x2x16xf16>, %key_new: tensor<2x1x2x16xf16>, %value_new: tensor<2x1x2x16xf16>,
    %cache_key: tensor<2x8x2x16xf16>, %cache_value: tensor<2x8x2x16xf16>,
    %i: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>}) -> tensor<2x1x2x16xf16> {
  // _update_cache: indices = tf.reshape(tf.one_hot(decode_loop_step, S), [1, S, 1, 1])
  %seq = poot.iota {dim = 0 : i64} : tensor<8xi32>
  %hot = poot.compare eq, %seq, %i : tensor<8xi32>, tensor<i32>
  %hotf = poot.convert %hot : tensor<8xi1> -> tensor<8xf16>
  %ind = poot.reshape %hotf : tensor<8xf16> -> tensor<1x8x1x1xf16>
  %kn = poot.mul %key_new, %ind : tensor<2x1x2x16xf16>, tensor<1x8x1x1xf16>
  %key = poot.add %cache_key, %kn : tensor<2x8x2x16xf16>, tensor<2x8x2x16xf16>
  %vn = poot.mul %value_new, %ind : tensor<2x1x2x16xf16>, tensor<1x8x1x1xf16>
  %value = poot.add %cache_value, %vn : tensor<2x8x2x16xf16>, tensor<2x8x2x16xf16>
  // einsum("aecd,abcd->acbe", key, query) as Transpose + MatMul
  %qt = poot.transpose %query {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x16xf16>
  %kt = poot.transpose %key {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x2x16xf16>
  %s0 = poot.matmul %qt, %kt : tensor<2x2x1x16xf16>, tensor<2x2x16x8xf16>
  // tf.multiply(attention_scores, 1.0 / math.sqrt(float(self._key_size)))
  %c = poot.constant dense<0.25> : tensor<f16>
  %s = poot.mul %s0, %c : tensor<2x2x1x8xf16>, tensor<f16>
  // decoder_self_attention_mask = band_part(ones([S, S], f16), -1, 0), [1, S, S]
  %band = poot.constant dense<[[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]]> : tensor<1x8x8xf16>
  // tf.slice(decoder_self_attention_mask, [0, i, 0], [1, 1, S]); tf.tile(.., [B, 1, 1])
  %z = poot.constant dense<0> : tensor<i32>
  %row = poot.dynamic_slice %band[%z, %i, %z] {sizes = array<i64: 1, 1, 8>} : tensor<1x8x8xf16>, tensor<i32>, tensor<i32>, tensor<i32>
  %mask = poot.broadcast %row {shape = array<i64: 2, 1, 8>} : tensor<1x1x8xf16>
  // MaskedSoftmax: expand_dims(mask, axis=[1]); adder = (1.0 - cast(mask)) * float16.min
  %m4 = poot.reshape %mask : tensor<2x1x8xf16> -> tensor<2x1x1x8xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %inv = poot.sub %one, %m4 : tensor<f16>, tensor<2x1x1x8xf16>
  %neg = poot.constant dense<-65504.0> : tensor<f16>
  %adder = poot.mul %inv, %neg : tensor<2x1x1x8xf16>, tensor<f16>
  %x = poot.add %s, %adder : tensor<2x2x1x8xf16>, tensor<2x1x1x8xf16>
  // tf.nn.softmax(scores, axis=-1)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf16>
  %d = poot.sub %x, %mx : tensor<2x2x1x8xf16>, tensor<2x2x1x1xf16>
  %e = poot.exp %d : tensor<2x2x1x8xf16>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf16>
  %p = poot.div %e, %zs : tensor<2x2x1x8xf16>, tensor<2x2x1x1xf16>
  // einsum("acbe,aecd->abcd", attention_probs, value) as Transpose + MatMul
  %vt = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf16>
  %o0 = poot.matmul %p, %vt : tensor<2x2x1x8xf16>, tensor<2x2x8x16xf16>
  %o = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x1x16xf16>
  return %o : tensor<2x1x2x16xf16>
}
