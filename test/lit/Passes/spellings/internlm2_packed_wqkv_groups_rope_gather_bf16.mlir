// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// InternLM2 (modeling_internlm2.py, InternLM2Attention.forward, eager) on a
// 5-token prefill, bf16: one packed projection qkv = wqkv(h) is
// rearranged 'b q (h gs d) -> b q h gs d' with gs = 2 + num_key_value_groups
// (h the key/value heads); query = qkv[..., :groups, :] rearranged
// 'b q h gs d -> b q (h gs) d', key = qkv[..., -2, :], value =
// qkv[..., -1, :]; transpose(1, 2); apply_rotary_pos_emb gathers
// cos_cached[:kv_seq_len][position_ids] (and sin) and unsqueezes at 1,
// rotate_half; repeat_kv; matmul(q, k^T) / sqrt(head_dim) + the
// _make_causal_mask mask (full(finfo(bf16).min), masked_fill(arange <
// (arange + 1).view(L, 1), 0), [None, None].expand; the all-ones padding
// term it is added to folds away); softmax(dtype=f32).to(bf16); @ v.
// 2 key/value heads with 2 query heads each (gs = 4), D = 16.

// CHECK-LABEL: func.func @internlm2_packed_wqkv_groups_rope_gather_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal{{$}}
func.func @internlm2_packed_wqkv_groups_rope_gather_bf16(
    %qkv0: tensor<1x5x128xbf16>, %cos_cached: tensor<8x16xbf16>, %sin_cached: tensor<8x16xbf16>,
    %position_ids: tensor<1x5xi64> {poot.range = array<i64: 0, 5>}) -> tensor<1x5x4x16xbf16> {
  %qkv = poot.reshape %qkv0 : tensor<1x5x128xbf16> -> tensor<1x5x2x4x16xbf16>
  %q5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 5, 2, 2, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x5x2x4x16xbf16>
  %qs = poot.reshape %q5 : tensor<1x5x2x2x16xbf16> -> tensor<1x5x4x16xbf16>
  %k5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 2, 0>, limit = array<i64: 1, 5, 2, 3, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x5x2x4x16xbf16>
  %ks = poot.reshape %k5 : tensor<1x5x2x1x16xbf16> -> tensor<1x5x2x16xbf16>
  %v5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 3, 0>, limit = array<i64: 1, 5, 2, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x5x2x4x16xbf16>
  %vs = poot.reshape %v5 : tensor<1x5x2x1x16xbf16> -> tensor<1x5x2x16xbf16>
  %q = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x16xbf16>
  %k = poot.transpose %ks {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  %v = poot.transpose %vs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  // rotary_emb(value_states, seq_len=5): cos_cached[:5]; apply_rotary_pos_emb: cos[position_ids].unsqueeze(1)
  %cc = poot.slice %cos_cached {start = array<i64: 0, 0>, limit = array<i64: 5, 16>, step = array<i64: 1, 1>} : tensor<8x16xbf16>
  %sc = poot.slice %sin_cached {start = array<i64: 0, 0>, limit = array<i64: 5, 16>, step = array<i64: 1, 1>} : tensor<8x16xbf16>
  %cg = poot.gather %cc[%position_ids] {axis = 0 : i64} : tensor<5x16xbf16>, tensor<1x5xi64>
  %sg = poot.gather %sc[%position_ids] {axis = 0 : i64} : tensor<5x16xbf16>, tensor<1x5xi64>
  %cos = poot.reshape %cg : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %sin = poot.reshape %sg : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  %nq2 = poot.neg %q2 : tensor<1x4x5x8xbf16>
  %qrot = poot.concat %nq2, %q1 {axis = 3 : i64} : tensor<1x4x5x8xbf16>, tensor<1x4x5x8xbf16>
  %qa = poot.mul %q, %cos : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qb = poot.mul %qrot, %sin : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qe = poot.add %qa, %qb : tensor<1x4x5x16xbf16>, tensor<1x4x5x16xbf16>
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xbf16>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xbf16>
  %nk2 = poot.neg %k2 : tensor<1x2x5x8xbf16>
  %krot = poot.concat %nk2, %k1 {axis = 3 : i64} : tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16>
  %ka = poot.mul %k, %cos : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %kb = poot.mul %krot, %sin : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %ke = poot.add %ka, %kb : tensor<1x2x5x16xbf16>, tensor<1x2x5x16xbf16>
  // repeat_kv
  %kx = poot.reshape %ke : tensor<1x2x5x16xbf16> -> tensor<1x2x1x5x16xbf16>
  %kxb = poot.broadcast %kx {shape = array<i64: 1, 2, 2, 5, 16>} : tensor<1x2x1x5x16xbf16>
  %kr = poot.reshape %kxb : tensor<1x2x2x5x16xbf16> -> tensor<1x4x5x16xbf16>
  %vx = poot.reshape %v : tensor<1x2x5x16xbf16> -> tensor<1x2x1x5x16xbf16>
  %vxb = poot.broadcast %vx {shape = array<i64: 1, 2, 2, 5, 16>} : tensor<1x2x1x5x16xbf16>
  %vr = poot.reshape %vxb : tensor<1x2x2x5x16xbf16> -> tensor<1x4x5x16xbf16>
  // _make_causal_mask
  %mfull = poot.constant dense<-3.38953139E+38> : tensor<5x5xbf16>
  %ar = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %ar1 = poot.add %ar, %one : tensor<5xi64>, tensor<i64>
  %col = poot.reshape %ar1 : tensor<5xi64> -> tensor<5x1xi64>
  %lt = poot.compare lt, %ar, %col : tensor<5xi64>, tensor<5x1xi64>
  %zb = poot.constant dense<0.0> : tensor<bf16>
  %cm = poot.select %lt, %zb, %mfull : tensor<5x5xi1>, tensor<bf16>, tensor<5x5xbf16>
  %cm4 = poot.reshape %cm : tensor<5x5xbf16> -> tensor<1x1x5x5xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x16xbf16>
  %s0 = poot.matmul %qe, %kt : tensor<1x4x5x16xbf16>, tensor<1x4x16x5xbf16>
  %sq = poot.constant dense<4.0> : tensor<bf16>
  %s = poot.div %s0, %sq : tensor<1x4x5x5xbf16>, tensor<bf16>
  %sm = poot.add %s, %cm4 : tensor<1x4x5x5xbf16>, tensor<1x1x5x5xbf16>
  %x = poot.convert %sm : tensor<1x4x5x5xbf16> -> tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %zs : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %pb = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x4x5x5xbf16>, tensor<1x4x5x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x16xbf16>
  return %ot : tensor<1x5x4x16xbf16>
}
