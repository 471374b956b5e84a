// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// stanford-crfm levanter (src/levanter/layers/attention.py, Attention
// .__call__ with attn_backend VANILLA, i.e. simple_attention_with_dropout;
// haliax named-axis ops), bf16 activations with upcast_attn and
// logits_soft_cap = 50: q from _compute_qkv has axes (batch, position,
// kv_head, q_heads_per_group, head_size), k and v (batch, position, kv_head,
// head_size); q.rearrange((..., kv_head, q_heads_per_group, position,
// head_size)), k and v likewise, position renamed key_position;
// AttentionMask.causal(sliding_window=3).materialize: causal_mask is
// arange(QPos) >= arange(KPos), _materialize_sliding_window_mask is
// diff = q_pos - k_pos, (diff >= 0) & (diff < window), and-ed together;
// query * (1 / sqrt(head_size)) in bf16, q and k astype(f32);
// haliax.dot(query, key, axis=head_size) (axes batch, kv_head,
// q_heads_per_group, position, key_position); tanh(w / cap) * cap;
// haliax.where(m, w, -1e9); haliax.nn.softmax over key_position;
// astype(bf16); dropout with inference=True (the identity);
// haliax.dot(weights, value, axis=key_position); flatten_axes((kv_head,
// q_heads_per_group), heads). B = 1, L = 6, kv_head 2 x 2, head_size 16.

// CHECK-LABEL: func.func @levanter_named_axes_grouped_heads_causal_sliding_where_1e9_softcap_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64, softcap = 5.000000e+01 : f64, window = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, softcap 50, causal, window 3{{$}}
func.func @levanter_named_axes_grouped_heads_causal_sliding_where_1e9_softcap_bf16(
    %q0: tensor<1x6x2x2x16xbf16>, %k0: tensor<1x6x2x16xbf16>, %v0: tensor<1x6x2x16xbf16>)
    -> tensor<1x4x6x16xbf16> {
  // rearrange to (..., kv_head, q_heads_per_group, position, head_size)
  %q = poot.transpose %q0 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x6x2x2x16xbf16>
  %k = poot.transpose %k0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %v = poot.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  // AttentionMask.causal(sliding_window=3).materialize(position, key_position)
  %qr = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %kr = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %qrb = poot.reshape %qr : tensor<6xi64> -> tensor<6x1xi64>
  %krb = poot.reshape %kr : tensor<6xi64> -> tensor<1x6xi64>
  %causal = poot.compare ge, %qrb, %krb : tensor<6x1xi64>, tensor<1x6xi64>
  %diff = poot.sub %qrb, %krb : tensor<6x1xi64>, tensor<1x6xi64>
  %z = poot.constant dense<0> : tensor<i64>
  %w = poot.constant dense<3> : tensor<i64>
  %d0 = poot.compare ge, %diff, %z : tensor<6x6xi64>, tensor<i64>
  %dw = poot.compare lt, %diff, %w : tensor<6x6xi64>, tensor<i64>
  %sw = poot.and %d0, %dw : tensor<6x6xi1>, tensor<6x6xi1>
  %m = poot.and %causal, %sw : tensor<6x6xi1>, tensor<6x6xi1>
  // simple_attention_with_dropout
  %sc = poot.constant dense<0.25> : tensor<bf16>
  %qs = poot.mul %q, %sc : tensor<1x2x2x6x16xbf16>, tensor<bf16>
  %qf = poot.convert %qs : tensor<1x2x2x6x16xbf16> -> tensor<1x2x2x6x16xf32>
  %kf = poot.convert %k : tensor<1x2x6x16xbf16> -> tensor<1x2x6x16xf32>
  %k5 = poot.reshape %kf : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %kt = poot.transpose %k5 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x6x16xf32>
  %wts = poot.matmul %qf, %kt : tensor<1x2x2x6x16xf32>, tensor<1x2x1x16x6xf32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %w1 = poot.div %wts, %cap : tensor<1x2x2x6x6xf32>, tensor<f32>
  %w2 = poot.tanh %w1 : tensor<1x2x2x6x6xf32>
  %w3 = poot.mul %w2, %cap : tensor<1x2x2x6x6xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0E+9> : tensor<f32>
  %wm = poot.select %m, %w3, %fill : tensor<6x6xi1>, tensor<1x2x2x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %wm {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xf32>
  %dd = poot.sub %wm, %mx : tensor<1x2x2x6x6xf32>, tensor<1x2x2x6x1xf32>
  %e = poot.exp %dd : tensor<1x2x2x6x6xf32>
  %s = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xf32>
  %p = poot.div %e, %s : tensor<1x2x2x6x6xf32>, tensor<1x2x2x6x1xf32>
  %pb = poot.convert %p : tensor<1x2x2x6x6xf32> -> tensor<1x2x2x6x6xbf16>
  %v5 = poot.reshape %v : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %o = poot.matmul %pb, %v5 : tensor<1x2x2x6x6xbf16>, tensor<1x2x1x6x16xbf16>
  // flatten_axes((kv_head, q_heads_per_group), heads)
  %out = poot.reshape %o : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  return %out : tensor<1x4x6x16xbf16>
}
