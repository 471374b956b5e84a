// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, Keras 3 keras.layers.AdditiveAttention(use_scale=True)
// called with use_causal_mask=True (keras/src/layers/attention/
// additive_attention.py _calculate_scores, attention.py _apply_scores and
// _calculate_score_mask), f32: Bahdanau scores = sum(scale * tanh(
// expand_dims(q, -2) + expand_dims(k, -3)), -1) with a learned [dim]
// scale; the causal mask from cumsum(ones) tables (trace-time constants)
// and greater_equal; scores -= 1e9 * cast(logical_not(mask)); softmax;
// matmul(weights, value). Softmax-weighted values over a causal mask, but
// the scores are no product q . k^T (a tanh of a sum, reduced over the
// features); must not fuse. B = 1, Tq = Tv = 5, dim = 8.

// CHECK-LABEL: func.func @nm_keras_additive_attention_causal_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
// EXPLAIN: remark: attention declined
func.func @nm_keras_additive_attention_causal_f32(%query: tensor<1x5x8xf32>, %key: tensor<1x5x8xf32>,
                                                  %value: tensor<1x5x8xf32>, %scale: tensor<8xf32>)
    -> tensor<1x5x8xf32> {
  // _calculate_scores
  %qr = poot.reshape %query : tensor<1x5x8xf32> -> tensor<1x5x1x8xf32>
  %kr = poot.reshape %key : tensor<1x5x8xf32> -> tensor<1x1x5x8xf32>
  %qk = poot.add %qr, %kr : tensor<1x5x1x8xf32>, tensor<1x1x5x8xf32>
  %th = poot.tanh %qk : tensor<1x5x5x8xf32>
  %st = poot.mul %scale, %th : tensor<8xf32>, tensor<1x5x5x8xf32>
  %scores = poot.reduce_sum %st {axis = 3 : i64} : tensor<1x5x5x8xf32>
  // _calculate_score_mask(use_causal_mask=True)
  %row = poot.constant dense<[[[1.0, 1.0, 1.0, 1.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0, 3.0], [4.0, 4.0, 4.0, 4.0, 4.0], [5.0, 5.0, 5.0, 5.0, 5.0]]]> : tensor<1x5x5xf32>
  %col = poot.constant dense<[[[1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 5.0]]]> : tensor<1x5x5xf32>
  %causal = poot.compare ge, %row, %col : tensor<1x5x5xf32>, tensor<1x5x5xf32>
  // _apply_scores
  %pad = poot.not %causal : tensor<1x5x5xi1>
  %padf = poot.convert %pad : tensor<1x5x5xi1> -> tensor<1x5x5xf32>
  %big = poot.constant dense<1.0e+09> : tensor<f32>
  %pen = poot.mul %big, %padf : tensor<f32>, tensor<1x5x5xf32>
  %sm = poot.sub %scores, %pen : tensor<1x5x5xf32>, tensor<1x5x5xf32>
  %mx = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<1x5x5xf32>
  %d = poot.sub %sm, %mx : tensor<1x5x5xf32>, tensor<1x5x1xf32>
  %e = poot.exp %d : tensor<1x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x5x5xf32>
  %w = poot.div %e, %zs : tensor<1x5x5xf32>, tensor<1x5x1xf32>
  %out = poot.matmul %w, %value : tensor<1x5x5xf32>, tensor<1x5x8xf32>
  return %out : tensor<1x5x8xf32>
}
