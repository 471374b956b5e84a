// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// fairseq2 (src/fairseq2/models/transformer/sdpa/naive.py, NaiveSDPA
// .forward and naive_scaled_dot_product_attention; multihead_attention.py
// StandardMultiheadAttention with num_query_groups = 2) in bf16, a chunk
// of 4 new tokens against 8 cached keys: k and v [N, S_kv, H_kv, K] are
// repeat_interleave'd at dim -2 (unsqueeze, expand, flatten); q, k, v
// transpose(-2, -3); weights = q @ k^T * q.size(-1) ** -0.5; + bias;
// softmax(dim=-1, dtype=f32).type_as(q); @ v; transpose back. The bias is
// CausalAttentionBias(attn_window_len=3).create_bias_tensor, materialized
// outside the compiled graph (torch.compiler.disable), so it arrives as a
// constant: _create_causal_bias_tensor(from_bottom_right=True): ones(q_len,
// k_len, bf16).tril_(d).triu_(d - 3 + 1).log_() with d = k_len - q_len = 4.
// Key t is visible from row i iff i + 2 <= t <= i + 4: causal at position 4
// with a window of 3. N = 2, H = 4, H_kv = 2, K = 16.

// CHECK-LABEL: func.func @fairseq2_naive_sdpa_bottom_right_window_bias_table_gqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}}) {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64, window = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal, window 3 at offset 4
func.func @fairseq2_naive_sdpa_bottom_right_window_bias_table_gqa_bf16(
    %q0: tensor<2x4x4x16xbf16>, %k0: tensor<2x8x2x16xbf16>, %v0: tensor<2x8x2x16xbf16>) -> tensor<2x4x4x16xbf16> {
  // repeat_interleave(k, dim=-2, repeat=2): unsqueeze(-1 - 1 + 1), expand, flatten
  %k5 = poot.reshape %k0 : tensor<2x8x2x16xbf16> -> tensor<2x8x2x1x16xbf16>
  %kx = poot.broadcast %k5 {shape = array<i64: 2, 8, 2, 2, 16>} : tensor<2x8x2x1x16xbf16>
  %k1 = poot.reshape %kx : tensor<2x8x2x2x16xbf16> -> tensor<2x8x4x16xbf16>
  %v5 = poot.reshape %v0 : tensor<2x8x2x16xbf16> -> tensor<2x8x2x1x16xbf16>
  %vx = poot.broadcast %v5 {shape = array<i64: 2, 8, 2, 2, 16>} : tensor<2x8x2x1x16xbf16>
  %v1 = poot.reshape %vx : tensor<2x8x2x2x16xbf16> -> tensor<2x8x4x16xbf16>
  // CausalAttentionBias(attn_window_len=3), bottom right, materialized: (S, S_kv)
  %bias = poot.constant dense<[[0xFF80, 0xFF80, 0.0, 0.0, 0.0, 0xFF80, 0xFF80, 0xFF80], [0xFF80, 0xFF80, 0xFF80, 0.0, 0.0, 0.0, 0xFF80, 0xFF80], [0xFF80, 0xFF80, 0xFF80, 0xFF80, 0.0, 0.0, 0.0, 0xFF80], [0xFF80, 0xFF80, 0xFF80, 0xFF80, 0xFF80, 0.0, 0.0, 0.0]]> : tensor<4x8xbf16>
  // (N, S, H, K) -> (N, H, S, K)
  %q = poot.transpose %q0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x16xbf16>
  %k = poot.transpose %k1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xbf16>
  %v = poot.transpose %v1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xbf16>
  // weights = torch.matmul(q, k.transpose(-1, -2)) * (q.size(-1) ** -0.5)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x8x16xbf16>
  %w0 = poot.matmul %q, %kt : tensor<2x4x4x16xbf16>, tensor<2x4x16x8xbf16>
  %c = poot.constant dense<0.25> : tensor<bf16>
  %w1 = poot.mul %w0, %c : tensor<2x4x4x8xbf16>, tensor<bf16>
  // weights + bias
  %w2 = poot.add %w1, %bias : tensor<2x4x4x8xbf16>, tensor<4x8xbf16>
  // softmax(weights, dim=-1, dtype=torch.float32).type_as(q)
  %x = poot.convert %w2 : tensor<2x4x4x8xbf16> -> tensor<2x4x4x8xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x4x8xf32>
  %d = poot.sub %x, %mx : tensor<2x4x4x8xf32>, tensor<2x4x4x1xf32>
  %e = poot.exp %d : tensor<2x4x4x8xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x4x8xf32>
  %p = poot.div %e, %zs : tensor<2x4x4x8xf32>, tensor<2x4x4x1xf32>
  %pb = poot.convert %p : tensor<2x4x4x8xf32> -> tensor<2x4x4x8xbf16>
  // attns = torch.matmul(weights, v); (N, H, S, V) -> (N, S, H, V)
  %o0 = poot.matmul %pb, %v : tensor<2x4x4x8xbf16>, tensor<2x4x8x16xbf16>
  %o = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x16xbf16>
  return %o : tensor<2x4x4x16xbf16>
}
