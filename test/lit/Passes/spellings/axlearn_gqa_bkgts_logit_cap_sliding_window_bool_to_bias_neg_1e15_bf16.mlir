// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Apple AXLearn (axlearn/common/attention.py, GroupedQueryAttention in
// ForwardMode.FORWARD, with atten_logit_cap = 50 and
// mask = SlidingWindowAttentionBias(sliding_window_size = 3)), bf16.
// ScaleQuery multiplies q_proj [b, t, n, h] by per_head_dim ** -0.5
// (ScaleKey by 1). compute_gqa_logits: q viewed [b, t, kv, g, h], k
// expanded [b, s, kv, 1, h], einsum "btkgh,bsk1h->bkgts", reshaped to
// [b, n, t, s]; _cap_logits: cap * tanh(logits / cap). The mask comes from
// attention_bias.py: sliding_window_causal_mask = and_masks(causal_mask
// (query_position >= key_position), query_position - key_position <= 3)
// over target_positions = source_positions = arange(T)[None] expanded to
// [1, T, 1] and [1, 1, S], broadcast to [1, 1, T, S]; bool_to_bias is
// safe_not(mask) * NEG_INF with NEG_INF = -1e15 (f32), cast to the query
// dtype. softmax_with_biases: logits + bias (bf16), astype f32,
// jax.nn.softmax, astype bf16; compute_gqa_context: probs viewed
// [b, kv, g, t, s], einsum "bkgts,bsk1h->btkgh" with v expanded, reshaped
// to [b, t, n, h]. The capped logits lie within +-50, so the bias of
// about -1e15 leaves exactly its own value on every hidden key and each row
// keeps its diagonal: the bias hides keys exactly. A key is visible for
// 0 <= i - t <= 3, four keys: strongest form causal, window 4, softcap 50
// (after the scale), scale 1/4, n_rep 2 (query head kv * g + r reads key
// head kv). B = 1, T = S = 8, 4 query heads over 2 key heads, h = 16.

// CHECK-LABEL: func.func @axlearn_gqa_bkgts_logit_cap_sliding_window_bool_to_bias_neg_1e15_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64, softcap = 5.000000e+01 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, softcap 50, causal, window 4{{$}}
func.func @axlearn_gqa_bkgts_logit_cap_sliding_window_bool_to_bias_neg_1e15_bf16(
    %q_proj: tensor<1x8x4x16xbf16>, %k_proj: tensor<1x8x2x16xbf16>, %v_proj: tensor<1x8x2x16xbf16>)
    -> tensor<1x8x4x16xbf16> {
  // ScaleQuery: proj * per_head_dim ** -0.5
  %qs = poot.constant dense<2.500000e-01> : tensor<bf16>
  %q = poot.mul %q_proj, %qs : tensor<1x8x4x16xbf16>, tensor<bf16>
  // compute_gqa_logits: einsum("btkgh,bsk1h->bkgts")
  %q5 = poot.reshape %q : tensor<1x8x4x16xbf16> -> tensor<1x8x2x2x16xbf16>
  %qg = poot.transpose %q5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x8x2x2x16xbf16>
  %k5 = poot.reshape %k_proj : tensor<1x8x2x16xbf16> -> tensor<1x8x2x1x16xbf16>
  %kg = poot.transpose %k5 {perm = array<i64: 0, 2, 3, 4, 1>} : tensor<1x8x2x1x16xbf16>
  %lg = poot.matmul %qg, %kg : tensor<1x2x2x8x16xbf16>, tensor<1x2x1x16x8xbf16>
  %logits = poot.reshape %lg : tensor<1x2x2x8x8xbf16> -> tensor<1x4x8x8xbf16>
  // _cap_logits: cap * tanh(logits / cap)
  %cap = poot.constant dense<5.000000e+01> : tensor<bf16>
  %l1 = poot.div %logits, %cap : tensor<1x4x8x8xbf16>, tensor<bf16>
  %l2 = poot.tanh %l1 : tensor<1x4x8x8xbf16>
  %l3 = poot.mul %cap, %l2 : tensor<bf16>, tensor<1x4x8x8xbf16>
  // SlidingWindowAttentionBias: target/source positions, mask fn, bool_to_bias
  %pos = poot.iota {dim = 1 : i64} : tensor<1x8xi32>
  %tp = poot.reshape %pos : tensor<1x8xi32> -> tensor<1x8x1xi32>
  %sp = poot.reshape %pos : tensor<1x8xi32> -> tensor<1x1x8xi32>
  %causal = poot.compare ge, %tp, %sp : tensor<1x8x1xi32>, tensor<1x1x8xi32>
  %diff = poot.sub %tp, %sp : tensor<1x8x1xi32>, tensor<1x1x8xi32>
  %w = poot.constant dense<3> : tensor<i32>
  %near = poot.compare le, %diff, %w : tensor<1x8x8xi32>, tensor<i32>
  %vis = poot.and %causal, %near : tensor<1x8x8xi1>, tensor<1x8x8xi1>
  %vis4 = poot.reshape %vis : tensor<1x8x8xi1> -> tensor<1x1x8x8xi1>
  %hid = poot.not %vis4 : tensor<1x1x8x8xi1>
  %hidf = poot.convert %hid : tensor<1x1x8x8xi1> -> tensor<1x1x8x8xf32>
  %neginf = poot.constant dense<-1.0e+15> : tensor<f32>
  %bias32 = poot.mul %hidf, %neginf : tensor<1x1x8x8xf32>, tensor<f32>
  %bias = poot.convert %bias32 : tensor<1x1x8x8xf32> -> tensor<1x1x8x8xbf16>
  // softmax_with_biases
  %lb = poot.add %l3, %bias : tensor<1x4x8x8xbf16>, tensor<1x1x8x8xbf16>
  %x = poot.convert %lb : tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xf32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %d = poot.sub %x, %m : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %e = poot.exp %d : tensor<1x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %p = poot.div %e, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %pb = poot.convert %p : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xbf16>
  // compute_gqa_context: einsum("bkgts,bsk1h->btkgh")
  %p5 = poot.reshape %pb : tensor<1x4x8x8xbf16> -> tensor<1x2x2x8x8xbf16>
  %v5 = poot.reshape %v_proj : tensor<1x8x2x16xbf16> -> tensor<1x8x2x1x16xbf16>
  %vg = poot.transpose %v5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x8x2x1x16xbf16>
  %c5 = poot.matmul %p5, %vg : tensor<1x2x2x8x8xbf16>, tensor<1x2x1x8x16xbf16>
  %ct = poot.transpose %c5 {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x2x2x8x16xbf16>
  %ctx = poot.reshape %ct : tensor<1x8x2x2x16xbf16> -> tensor<1x8x4x16xbf16>
  return %ctx : tensor<1x8x4x16xbf16>
}
