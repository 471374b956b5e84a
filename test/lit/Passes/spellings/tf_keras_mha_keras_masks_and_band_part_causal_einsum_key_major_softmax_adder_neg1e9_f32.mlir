// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --set=keras_mask=1,1,1,1,1,1,1,1,1,1,1,1 --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --set=keras_mask=1,1,1,1,1,1,1,1,1,1,1,1 --check --ref=%s --quiet %}

// keras-team/tf-keras 2.15.1, tf_keras/src/layers/attention/
// multi_head_attention.py, MultiHeadAttention.call as a Transformer
// decoder's causal self-attention calls it, mha(query=x, value=x, key=x,
// use_causal_mask=True), with x carrying the Keras mask of an
// Embedding(mask_zero=True) (the i1 input keras_mask, True = token), f32,
// the dense projections left outside ([B, T, N, H] each).
// _compute_attention_mask: query_mask[:, :, tf.newaxis] & value_mask[:,
// tf.newaxis, :] & key_mask[:, tf.newaxis, :] (the three masks are the same
// tensor here) & _compute_causal_mask = tf.linalg.band_part(tf.ones((1, T,
// S), tf.bool), -1, 0) (kept where n - m <= 0), logical ands in that order;
// _compute_attention: query = tf.multiply(query, 1.0 / math.sqrt(key_dim));
// tf.einsum("aecd,abcd->acbe", key, query), which TF's Einsum kernel runs
// as a batch matmul over the batch labels (a, c) with input 0's free label
// first, key [a, c, e, d] . query^T = [a, c, e, b], then transposed to the
// output labels; _masked_softmax: tf.expand_dims(mask, -3); the Softmax
// layer (axis = (3,)): adder = (1.0 - tf.cast(mask, f32)) *
// _large_compatible_negative(f32) = -1e9, inputs += adder,
// backend.softmax -> tf.nn.softmax(axis=3) (the kernel: exp(x - max) times
// the inverse of its sum); dropout 0; tf.einsum("acbe,aecd->abcd", scores,
// value): [a, c, b, e] . value [a, c, e, d], transposed to [a, b, c, d].
// B = 2, T = S = 6, N = 2, key_dim = 16.
//
// Strongest form: one tensor mask per batch row, poot.attention q, k, v
// mask(.. : tensor<2x1x6x6xf32>) {n_rep = 1, scale = 0.25}: the one -1e9
// fill covers padding queries (a whole row hidden: the graph averages every
// key there, the future ones included) and padding keys (key 0 may be
// one), so the causal part cannot be taken apart from the padding and no
// row is 0 (no zero_empty_rows).

// Oracle note: a padded position hides the whole row of its query (the
// Keras mask of the query meets every key), and on such a row f32 rounds
// s * 0.25 - 1e9 to -1e9 for every key: TF (and the graph in f32, and the
// fused op) give the average of v, while the f64 oracle keeps the scores
// (1e9 cancels exactly) and gives their softmax. That is the graph's own
// f32 rounding, not the fusion (the fused and unfused outputs are equal
// there), so the checks bind a mask that pads nothing: they check the
// causal band and the fused arithmetic against the oracle, and the
// structure checks above hold for any mask.

// Reached (the fused form is the unfused graph's f32 result exactly):
// CHECK-LABEL: func.func @tf_keras_mha_keras_masks_and_band_part_causal_einsum_key_major_softmax_adder_neg1e9_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x6x6xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; mask kept as a tensor: finite fill -1e+09 over a condition read only in part{{$}}
func.func @tf_keras_mha_keras_masks_and_band_part_causal_einsum_key_major_softmax_adder_neg1e9_f32(
    %query: tensor<2x6x2x16xf32>, %key: tensor<2x6x2x16xf32>, %value: tensor<2x6x2x16xf32>,
    %keras_mask: tensor<2x6xi1> {poot.name = "keras_mask"}) -> tensor<2x6x2x16xf32> {
  // _compute_attention_mask: auto_mask = query_mask[:, :, tf.newaxis]
  %qm = poot.reshape %keras_mask : tensor<2x6xi1> -> tensor<2x6x1xi1>
  // auto_mask = auto_mask & value_mask[:, tf.newaxis, :]
  %vm = poot.reshape %keras_mask : tensor<2x6xi1> -> tensor<2x1x6xi1>
  %am1 = poot.and %qm, %vm : tensor<2x6x1xi1>, tensor<2x1x6xi1>
  // auto_mask = auto_mask & key_mask[:, tf.newaxis, :]
  %km = poot.reshape %keras_mask : tensor<2x6xi1> -> tensor<2x1x6xi1>
  %am2 = poot.and %am1, %km : tensor<2x6x6xi1>, tensor<2x1x6xi1>
  // _compute_causal_mask: tf.linalg.band_part(tf.ones((1, T, S), tf.bool), -1, 0)
  %ones = poot.constant dense<true> : tensor<1x6x6xi1>
  %m = poot.iota {dim = 1 : i64} : tensor<1x6x6xi64>
  %n = poot.iota {dim = 2 : i64} : tensor<1x6x6xi64>
  %nm = poot.sub %n, %m : tensor<1x6x6xi64>, tensor<1x6x6xi64>
  %c0 = poot.constant dense<0> : tensor<i64>
  %in_band = poot.compare le, %nm, %c0 : tensor<1x6x6xi64>, tensor<i64>
  %false = poot.constant dense<false> : tensor<i1>
  %causal = poot.select %in_band, %ones, %false : tensor<1x6x6xi1>, tensor<1x6x6xi1>, tensor<i1>
  // auto_mask = auto_mask & mask
  %attention_mask = poot.and %am2, %causal : tensor<2x6x6xi1>, tensor<1x6x6xi1>
  // _compute_attention: query = tf.multiply(query, 1.0 / math.sqrt(float(self._key_dim)))
  %qsc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %query, %qsc : tensor<2x6x2x16xf32>, tensor<f32>
  // attention_scores = tf.einsum("aecd,abcd->acbe", key, query): key [a, c, e, d] . query [a, c, b, d]^T
  %kl = poot.transpose %key {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %qr = poot.transpose %qs {perm = array<i64: 0, 2, 3, 1>} : tensor<2x6x2x16xf32>
  %ceb = poot.matmul %kl, %qr : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %scores = poot.transpose %ceb {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x6xf32>
  // _masked_softmax: attention_mask = tf.expand_dims(attention_mask, axis=-3)
  %mask4 = poot.reshape %attention_mask : tensor<2x6x6xi1> -> tensor<2x1x6x6xi1>
  // Softmax.call: adder = (1.0 - tf.cast(mask, inputs.dtype)) * _large_compatible_negative(inputs.dtype)
  %maskf = poot.convert %mask4 : tensor<2x1x6x6xi1> -> tensor<2x1x6x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %maskf : tensor<f32>, tensor<2x1x6x6xf32>
  %neg = poot.constant dense<-1.0e+09> : tensor<f32>
  %adder = poot.mul %inv, %neg : tensor<2x1x6x6xf32>, tensor<f32>
  // inputs += adder
  %x = poot.add %scores, %adder : tensor<2x2x6x6xf32>, tensor<2x1x6x6xf32>
  // backend.softmax(inputs, axis=3) -> tf.nn.softmax: exp(x - max) * (1 / sum)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %sh = poot.sub %x, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %sh : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %rz = poot.div %one, %z : tensor<f32>, tensor<2x2x6x1xf32>
  %p = poot.mul %e, %rz : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  // attention_output = tf.einsum("acbe,aecd->abcd", attention_scores, value): [a, c, b, e] . value [a, c, e, d]
  %vl = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %acbd = poot.matmul %p, %vl : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  %out = poot.transpose %acbd {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf32>
  return %out : tensor<2x6x2x16xf32>
}
