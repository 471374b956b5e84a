// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Hugging Face transformers, DBRX (models/dbrx/modeling_dbrx.py, the eager
// DbrxAttention.forward of the 4.40-4.44 releases, with the mask of
// DbrxModel._update_causal_mask), bf16 prefill. qkv_states = Wqkv(hidden)
// (no bias); qkv_states.clamp(min=-clip_qkv, max=clip_qkv) (clip_qkv = 8);
// split([hidden_size, kv_heads * head_dim, kv_heads * head_dim], dim=2);
// each viewed (bsz, q_len, heads, head_dim).transpose(1, 2); cos, sin from
// DbrxRotaryEmbedding (inputs here, [1, L, D]); apply_rotary_pos_emb with
// rotate_half (cat(-x2, x1)) and cos/sin unsqueezed at dim 1; repeat_kv
// (expand(b, hkv, n_rep, s, d).reshape); attn_weights = matmul(q, k^T) *
// softmax_scale (head_dim^-0.5); + causal_mask[:, :, :, :kv_len], the
// mask being torch.full((L, L), finfo(bf16).min).triu(1) *= (arange(L) >
// cache_position.reshape(-1, 1)) (cache_position = arange(L) on a fresh
// prefill), expanded to [B, 1, L, L]; softmax(dim=-1, dtype=float32)
// .to(bf16); matmul(v); transpose(1, 2), reshape. B = 1, L = 5, hidden 64
// in 4 query heads of 16, 2 key/value heads (GQA 4/2).
//
// Strongest form: two half-style rotaries, then one causal fused op with
// n_rep 2 (K/V read once per key head), scale 1/4, no tensor mask.

// CHECK-LABEL: func.func @hf_dbrx_wqkv_clamp_clip_qkv_split_rope_repeat_kv_triu_min_mul_cache_position_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64} : tensor<1x4x5x16xbf16>, tensor<1x2x5x16xbf16>, tensor<1x2x5x16xbf16> -> tensor<1x4x5x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal
func.func @hf_dbrx_wqkv_clamp_clip_qkv_split_rope_repeat_kv_triu_min_mul_cache_position_bf16(
    %hidden: tensor<1x5x64xbf16>, %wqkv_t: tensor<64x128xbf16>,
    %cos0: tensor<1x5x16xbf16>, %sin0: tensor<1x5x16xbf16>) -> tensor<1x5x64xbf16> {
  // qkv_states = self.Wqkv(hidden_states).clamp(min=-clip_qkv, max=clip_qkv)
  %qkv0 = poot.matmul %hidden, %wqkv_t : tensor<1x5x64xbf16>, tensor<64x128xbf16>
  %lo = poot.constant dense<-8.0> : tensor<bf16>
  %hi = poot.constant dense<8.0> : tensor<bf16>
  %qkv1 = poot.max %qkv0, %lo : tensor<1x5x128xbf16>, tensor<bf16>
  %qkv = poot.min %qkv1, %hi : tensor<1x5x128xbf16>, tensor<bf16>
  // split([64, 32, 32], dim=2)
  %qs = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 5, 64>, step = array<i64: 1, 1, 1>} : tensor<1x5x128xbf16>
  %ks = poot.slice %qkv {start = array<i64: 0, 0, 64>, limit = array<i64: 1, 5, 96>, step = array<i64: 1, 1, 1>} : tensor<1x5x128xbf16>
  %vs = poot.slice %qkv {start = array<i64: 0, 0, 96>, limit = array<i64: 1, 5, 128>, step = array<i64: 1, 1, 1>} : tensor<1x5x128xbf16>
  %q4 = poot.reshape %qs : tensor<1x5x64xbf16> -> tensor<1x5x4x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x16xbf16>
  %k4 = poot.reshape %ks : tensor<1x5x32xbf16> -> tensor<1x5x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  %v4 = poot.reshape %vs : tensor<1x5x32xbf16> -> tensor<1x5x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  // apply_rotary_pos_emb: cos.unsqueeze(1), q * cos + rotate_half(q) * sin
  %cos = poot.reshape %cos0 : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %sin = poot.reshape %sin0 : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  %qn2 = poot.neg %q2 : tensor<1x4x5x8xbf16>
  %qrh = poot.concat %qn2, %q1 {axis = 3 : i64} : tensor<1x4x5x8xbf16>, tensor<1x4x5x8xbf16>
  %qa = poot.mul %q, %cos : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qb = poot.mul %qrh, %sin : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qr = poot.add %qa, %qb : tensor<1x4x5x16xbf16>, tensor<1x4x5x16xbf16>
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xbf16>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xbf16>
  %kn2 = poot.neg %k2 : tensor<1x2x5x8xbf16>
  %krh = poot.concat %kn2, %k1 {axis = 3 : i64} : tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16>
  %ka = poot.mul %k, %cos : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %kb = poot.mul %krh, %sin : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %kr = poot.add %ka, %kb : tensor<1x2x5x16xbf16>, tensor<1x2x5x16xbf16>
  // repeat_kv(key_states, 2), repeat_kv(value_states, 2)
  %k5 = poot.reshape %kr : tensor<1x2x5x16xbf16> -> tensor<1x2x1x5x16xbf16>
  %kx = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 5, 16>} : tensor<1x2x1x5x16xbf16>
  %krep = poot.reshape %kx : tensor<1x2x2x5x16xbf16> -> tensor<1x4x5x16xbf16>
  %v5 = poot.reshape %v : tensor<1x2x5x16xbf16> -> tensor<1x2x1x5x16xbf16>
  %vx = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 5, 16>} : tensor<1x2x1x5x16xbf16>
  %vrep = poot.reshape %vx : tensor<1x2x2x5x16xbf16> -> tensor<1x4x5x16xbf16>
  // attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) * self.softmax_scale
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x16xbf16>
  %w0 = poot.matmul %qr, %kt : tensor<1x4x5x16xbf16>, tensor<1x4x16x5xbf16>
  %sc = poot.constant dense<0.25> : tensor<bf16>
  %w = poot.mul %w0, %sc : tensor<1x4x5x5xbf16>, tensor<bf16>
  // _update_causal_mask: full(min).triu(1); *= arange(L) > cache_position.reshape(-1, 1)
  %ri = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %ci = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %up = poot.compare gt, %ci, %ri : tensor<5x5xi64>, tensor<5x5xi64>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %zb = poot.constant dense<0.0> : tensor<bf16>
  %triu = poot.select %up, %min, %zb : tensor<5x5xi1>, tensor<bf16>, tensor<bf16>
  %ar = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %ar2 = poot.reshape %ar : tensor<5xi64> -> tensor<1x5xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %cp2 = poot.reshape %cp : tensor<5xi64> -> tensor<5x1xi64>
  %after = poot.compare gt, %ar2, %cp2 : tensor<1x5xi64>, tensor<5x1xi64>
  %afterf = poot.convert %after : tensor<5x5xi1> -> tensor<5x5xbf16>
  %cm = poot.mul %triu, %afterf : tensor<5x5xbf16>, tensor<5x5xbf16>
  %cm4 = poot.reshape %cm : tensor<5x5xbf16> -> tensor<1x1x5x5xbf16>
  %wm = poot.add %w, %cm4 : tensor<1x4x5x5xbf16>, tensor<1x1x5x5xbf16>
  // softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
  %x = poot.convert %wm : tensor<1x4x5x5xbf16> -> tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %pf = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %p = poot.convert %pf : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xbf16>
  %o = poot.matmul %p, %vrep : tensor<1x4x5x5xbf16>, tensor<1x4x5x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x16xbf16>
  %out = poot.reshape %ot : tensor<1x5x4x16xbf16> -> tensor<1x5x64xbf16>
  return %out : tensor<1x5x64xbf16>
}
