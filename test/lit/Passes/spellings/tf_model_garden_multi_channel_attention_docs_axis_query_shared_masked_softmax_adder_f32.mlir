// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --set=attention_mask=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,0,0,1,1,1,0,0 --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --set=attention_mask=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,0,0,1,1,1,0,0,1,1,1,0,0 --check --ref=%s --quiet %}

// TensorFlow Model Garden official/nlp/modeling/layers/
// multi_channel_attention.py, MultiChannelAttention.call (NHNet's decoder
// cross-attention over A source documents), f32:
//   query_tensor [B, F, N, H]; key_tensor, value_tensor [B, A, T, N, H]
//   attention_scores = tf.einsum("BATNH,BFNH->BANFT", key_tensor, query_tensor)
//   attention_scores = tf.multiply(attention_scores, 1.0 / math.sqrt(key_dim))
//   attention_probs = MaskedSoftmax(mask_expansion_axes=[2])(scores, attention_mask)
//   context_layer = tf.einsum("BANFT,BATNH->BAFNH", attention_probs, value_tensor)
//   attention_output = tf.einsum("BNFA,BAFNH->BFNH", context_attention_weights, context_layer)
// MaskedSoftmax (official/nlp/modeling/layers/masked_softmax.py): the mask
// [B, A, F, T] expanded at axis 2 for the heads, adder = (1.0 - tf.cast(mask,
// f32)) * _large_compatible_negative(f32) = -1e9, scores += adder,
// tf.nn.softmax(axis=-1). One query sequence is shared by every document
// (the scores' A axis comes from the keys alone); the documents are mixed
// after P . V by the VotingAttention weights. B 1, A 2, F 3, T 5, N 2,
// H 16 (scale 1/4).
//
// Strongest form: one fused attention per (batch, document) over the
// shared queries, with the -1e9 adder as a tensor mask (additive, so exact
// on every row), n_rep 1, scale 1/4; the document mix stays outside.

// Oracle note: on a row the mask hides whole, f32 rounds s * 0.25 - 1e9 to
// -1e9 for every key (TF and the graph average v) while the f64 oracle
// cancels the 1e9 exactly and keeps the softmax of the scores; that is the
// graph's own rounding, so the check RUN lines bind a mask that pads the
// last two keys of document 1 and leaves every row a key. The structure
// checks hold for any mask.

// Not the strongest form yet (the one above). Today (sound, runs unfused):
// the rank-5 scores with the query shared over the documents axis are taken
// for grouped keys and declined; the shared query is not broadcast and
// merged into the batch.
// CHECK-LABEL: func.func @tf_model_garden_multi_channel_attention_docs_axis_query_shared_masked_softmax_adder_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: grouped keys or values are not one head per group spread over the group axis{{$}}
func.func @tf_model_garden_multi_channel_attention_docs_axis_query_shared_masked_softmax_adder_f32(
    %query_tensor: tensor<1x3x2x16xf32>, %key_tensor: tensor<1x2x5x2x16xf32>,
    %value_tensor: tensor<1x2x5x2x16xf32>, %attention_mask: tensor<1x2x3x5xi1> {poot.name = "attention_mask"},
    %context_attention_weights: tensor<1x2x3x2xf32>) -> tensor<1x3x2x16xf32> {
  // tf.einsum("BATNH,BFNH->BANFT", key_tensor, query_tensor)
  %q5 = poot.reshape %query_tensor : tensor<1x3x2x16xf32> -> tensor<1x1x3x2x16xf32>
  %qt = poot.transpose %q5 {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x1x3x2x16xf32>
  %kt = poot.transpose %key_tensor {perm = array<i64: 0, 1, 3, 4, 2>} : tensor<1x2x5x2x16xf32>
  %s = poot.matmul %qt, %kt : tensor<1x1x2x3x16xf32>, tensor<1x2x2x16x5xf32>
  // tf.multiply(attention_scores, 1.0 / math.sqrt(float(key_dim)))
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x2x3x5xf32>, tensor<f32>
  // MaskedSoftmax: expand_dims(mask, 2); adder = (1.0 - cast(mask)) * -1e9; scores += adder
  %m5 = poot.reshape %attention_mask : tensor<1x2x3x5xi1> -> tensor<1x2x1x3x5xi1>
  %mf = poot.convert %m5 : tensor<1x2x1x3x5xi1> -> tensor<1x2x1x3x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %mf : tensor<f32>, tensor<1x2x1x3x5xf32>
  %neg = poot.constant dense<-1.000000e+09> : tensor<f32>
  %adder = poot.mul %inv, %neg : tensor<1x2x1x3x5xf32>, tensor<f32>
  %sm = poot.add %ss, %adder : tensor<1x2x2x3x5xf32>, tensor<1x2x1x3x5xf32>
  // tf.nn.softmax(scores, axis=-1)
  %mx = poot.reduce_max %sm {axis = 4 : i64, keepdim} : tensor<1x2x2x3x5xf32>
  %d = poot.sub %sm, %mx : tensor<1x2x2x3x5xf32>, tensor<1x2x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<1x2x2x3x5xf32>, tensor<1x2x2x3x1xf32>
  // tf.einsum("BANFT,BATNH->BAFNH", attention_probs, value_tensor)
  %vt = poot.transpose %value_tensor {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x2x5x2x16xf32>
  %ctx0 = poot.matmul %p, %vt : tensor<1x2x2x3x5xf32>, tensor<1x2x2x5x16xf32>
  %ctx = poot.transpose %ctx0 {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x2x2x3x16xf32>
  // tf.einsum("BNFA,BAFNH->BFNH", context_attention_weights, context_layer)
  %wt = poot.transpose %context_attention_weights {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x3x2xf32>
  %w5 = poot.reshape %wt : tensor<1x3x2x2xf32> -> tensor<1x3x2x1x2xf32>
  %ct = poot.transpose %ctx {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x2x3x2x16xf32>
  %mix = poot.matmul %w5, %ct : tensor<1x3x2x1x2xf32>, tensor<1x3x2x2x16xf32>
  %out = poot.reshape %mix : tensor<1x3x2x1x16xf32> -> tensor<1x3x2x16xf32>
  return %out : tensor<1x3x2x16xf32>
}
