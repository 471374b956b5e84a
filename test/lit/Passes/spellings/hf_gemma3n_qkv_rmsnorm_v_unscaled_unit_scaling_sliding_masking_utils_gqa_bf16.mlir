// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Hugging Face transformers Gemma 3n text decoder, a sliding_attention
// layer (models/gemma3n/modeling_gemma3n.py, Gemma3nTextAttention.forward
// and eager_attention_forward; the mask from masking_utils
// create_sliding_window_causal_mask, eager), bf16, a prefill of 8 tokens
// from position 0 without a cache. Gemma3nTextAttention: q_proj(h)
// .view(B, L, -1, head_dim); q_norm = Gemma3nRMSNorm(head_dim):
// x.float() / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) *
// weight.float(), type_as(x) (the weight used as is, not 1 + weight);
// apply_rotary_pos_emb(q, cos, sin, unsqueeze_dim=2) in the [B, L, H, D]
// layout (rotate-half, the local rope tables in bf16); transpose(1, 2); the
// key alike with k_norm; the value through v_norm = Gemma3nRMSNorm(
// with_scale=False), whose weight is a buffer torch.tensor(1.0);
// eager_attention_forward(..., scaling=1.0): no 1/sqrt(d) at all (the q/k
// norms take its place), repeat_kv, matmul(q, k^T) * 1.0, softcap None,
// + causal_mask[:, :, :, :Lk], softmax(dim=-1, dtype=f32).to(bf16), @ v.
// The mask: sdpa_mask with and_masks(sliding_window_overlay(W),
// causal_mask_function) evaluated (vmap) over q_idx = cache_position =
// arange(L) and kv_idx = arange(Lk): kv_idx > q_idx - W and kv_idx <=
// q_idx; eager_mask: torch.where(mask, 0.0, finfo(bf16).min).
// B = 1, L = 8, W = 4, 4 query heads and 2 key heads of 32.
//
// Strongest form: two rotate-half rotaries; one attention with causal and
// window 4 (the finite fill hides keys: every row keeps its diagonal
// key), n_rep 2, scale exactly 1.

// CHECK-LABEL: func.func @hf_gemma3n_qkv_rmsnorm_v_unscaled_unit_scaling_sliding_masking_utils_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 1.000000e+00 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 1, causal, window 4{{$}}
func.func @hf_gemma3n_qkv_rmsnorm_v_unscaled_unit_scaling_sliding_masking_utils_gqa_bf16(
    %h: tensor<1x8x64xbf16>, %wq: tensor<128x64xbf16>, %wk: tensor<64x64xbf16>,
    %wv: tensor<64x64xbf16>, %q_norm_w: tensor<32xbf16>, %k_norm_w: tensor<32xbf16>,
    %cos: tensor<1x8x32xbf16>, %sin: tensor<1x8x32xbf16>, %wo: tensor<64x128xbf16>)
    -> tensor<1x8x64xbf16> {
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %two = poot.constant dense<2.0> : tensor<f32>
  %d32 = poot.constant dense<32.0> : tensor<f32>
  // query_states = self.q_proj(hidden_states).view(hidden_shape)
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<128x64xbf16>
  %q0 = poot.matmul %h, %wqt : tensor<1x8x64xbf16>, tensor<64x128xbf16>
  %q4 = poot.reshape %q0 : tensor<1x8x128xbf16> -> tensor<1x8x4x32xbf16>
  // self.q_norm(query_states)
  %qf = poot.convert %q4 : tensor<1x8x4x32xbf16> -> tensor<1x8x4x32xf32>
  %qp = poot.pow %qf, %two : tensor<1x8x4x32xf32>, tensor<f32>
  %qs = poot.reduce_sum %qp {axis = 3 : i64, keepdim} : tensor<1x8x4x32xf32>
  %qm = poot.div %qs, %d32 : tensor<1x8x4x1xf32>, tensor<f32>
  %qme = poot.add %qm, %eps : tensor<1x8x4x1xf32>, tensor<f32>
  %qrt = poot.sqrt %qme : tensor<1x8x4x1xf32>
  %qnn = poot.div %qf, %qrt : tensor<1x8x4x32xf32>, tensor<1x8x4x1xf32>
  %qwf = poot.convert %q_norm_w : tensor<32xbf16> -> tensor<32xf32>
  %qnw = poot.mul %qnn, %qwf : tensor<1x8x4x32xf32>, tensor<32xf32>
  %qn = poot.convert %qnw : tensor<1x8x4x32xf32> -> tensor<1x8x4x32xbf16>
  // apply_rotary_pos_emb(query_states, cos, sin, unsqueeze_dim=2)
  %c4 = poot.reshape %cos : tensor<1x8x32xbf16> -> tensor<1x8x1x32xbf16>
  %s4 = poot.reshape %sin : tensor<1x8x32xbf16> -> tensor<1x8x1x32xbf16>
  %qx1 = poot.slice %qn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x4x32xbf16>
  %qx2 = poot.slice %qn {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 8, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x4x32xbf16>
  %qn2 = poot.neg %qx2 : tensor<1x8x4x16xbf16>
  %qrh = poot.concat %qn2, %qx1 {axis = 3 : i64} : tensor<1x8x4x16xbf16>, tensor<1x8x4x16xbf16>
  %qa = poot.mul %qn, %c4 : tensor<1x8x4x32xbf16>, tensor<1x8x1x32xbf16>
  %qb = poot.mul %qrh, %s4 : tensor<1x8x4x32xbf16>, tensor<1x8x1x32xbf16>
  %qr = poot.add %qa, %qb : tensor<1x8x4x32xbf16>, tensor<1x8x4x32xbf16>
  %q = poot.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x32xbf16>
  // key_states = self.k_proj(hidden_states).view(hidden_shape); self.k_norm; rope; transpose(1, 2)
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<64x64xbf16>
  %k0 = poot.matmul %h, %wkt : tensor<1x8x64xbf16>, tensor<64x64xbf16>
  %k4 = poot.reshape %k0 : tensor<1x8x64xbf16> -> tensor<1x8x2x32xbf16>
  %kf = poot.convert %k4 : tensor<1x8x2x32xbf16> -> tensor<1x8x2x32xf32>
  %kp = poot.pow %kf, %two : tensor<1x8x2x32xf32>, tensor<f32>
  %ks = poot.reduce_sum %kp {axis = 3 : i64, keepdim} : tensor<1x8x2x32xf32>
  %km = poot.div %ks, %d32 : tensor<1x8x2x1xf32>, tensor<f32>
  %kme = poot.add %km, %eps : tensor<1x8x2x1xf32>, tensor<f32>
  %krt = poot.sqrt %kme : tensor<1x8x2x1xf32>
  %knn = poot.div %kf, %krt : tensor<1x8x2x32xf32>, tensor<1x8x2x1xf32>
  %kwf = poot.convert %k_norm_w : tensor<32xbf16> -> tensor<32xf32>
  %knw = poot.mul %knn, %kwf : tensor<1x8x2x32xf32>, tensor<32xf32>
  %kn = poot.convert %knw : tensor<1x8x2x32xf32> -> tensor<1x8x2x32xbf16>
  %kx1 = poot.slice %kn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x2x32xbf16>
  %kx2 = poot.slice %kn {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 8, 2, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x2x32xbf16>
  %kn2 = poot.neg %kx2 : tensor<1x8x2x16xbf16>
  %krh = poot.concat %kn2, %kx1 {axis = 3 : i64} : tensor<1x8x2x16xbf16>, tensor<1x8x2x16xbf16>
  %ka = poot.mul %kn, %c4 : tensor<1x8x2x32xbf16>, tensor<1x8x1x32xbf16>
  %kb = poot.mul %krh, %s4 : tensor<1x8x2x32xbf16>, tensor<1x8x1x32xbf16>
  %kr = poot.add %ka, %kb : tensor<1x8x2x32xbf16>, tensor<1x8x2x32xbf16>
  %k = poot.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x32xbf16>
  // value_states = self.v_proj(hidden_states).view(hidden_shape); self.v_norm (with_scale=False); transpose(1, 2)
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<64x64xbf16>
  %v0 = poot.matmul %h, %wvt : tensor<1x8x64xbf16>, tensor<64x64xbf16>
  %v4 = poot.reshape %v0 : tensor<1x8x64xbf16> -> tensor<1x8x2x32xbf16>
  %vf = poot.convert %v4 : tensor<1x8x2x32xbf16> -> tensor<1x8x2x32xf32>
  %vp = poot.pow %vf, %two : tensor<1x8x2x32xf32>, tensor<f32>
  %vs = poot.reduce_sum %vp {axis = 3 : i64, keepdim} : tensor<1x8x2x32xf32>
  %vm = poot.div %vs, %d32 : tensor<1x8x2x1xf32>, tensor<f32>
  %vme = poot.add %vm, %eps : tensor<1x8x2x1xf32>, tensor<f32>
  %vrt = poot.sqrt %vme : tensor<1x8x2x1xf32>
  %vnn = poot.div %vf, %vrt : tensor<1x8x2x32xf32>, tensor<1x8x2x1xf32>
  %vone = poot.constant dense<1.0> : tensor<f32>
  %vnw = poot.mul %vnn, %vone : tensor<1x8x2x32xf32>, tensor<f32>
  %vn = poot.convert %vnw : tensor<1x8x2x32xf32> -> tensor<1x8x2x32xbf16>
  %v = poot.transpose %vn {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x32xbf16>
  // create_sliding_window_causal_mask: and_masks(sliding_window_overlay(4), causal_mask_function)
  %qi = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi64>
  %kvi = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi64>
  %w = poot.constant dense<4> : tensor<i64>
  %lo = poot.sub %qi, %w : tensor<1x1x8x1xi64>, tensor<i64>
  %slide = poot.compare gt, %kvi, %lo : tensor<1x1x1x8xi64>, tensor<1x1x8x1xi64>
  %causal = poot.compare le, %kvi, %qi : tensor<1x1x1x8xi64>, tensor<1x1x8x1xi64>
  %vis = poot.and %slide, %causal : tensor<1x1x8x8xi1>, tensor<1x1x8x8xi1>
  // eager_mask: torch.where(mask, 0.0, torch.finfo(bf16).min)
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %fmin = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %vis, %zero, %fmin : tensor<1x1x8x8xi1>, tensor<bf16>, tensor<bf16>
  // eager_attention_forward: repeat_kv(key, 2), repeat_kv(value, 2)
  %k5 = poot.reshape %k : tensor<1x2x8x32xbf16> -> tensor<1x2x1x8x32xbf16>
  %kbc = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 32>} : tensor<1x2x1x8x32xbf16>
  %kk = poot.reshape %kbc : tensor<1x2x2x8x32xbf16> -> tensor<1x4x8x32xbf16>
  %v5 = poot.reshape %v : tensor<1x2x8x32xbf16> -> tensor<1x2x1x8x32xbf16>
  %vbc = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 8, 32>} : tensor<1x2x1x8x32xbf16>
  %vv = poot.reshape %vbc : tensor<1x2x2x8x32xbf16> -> tensor<1x4x8x32xbf16>
  // attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling (1.0)
  %kt = poot.transpose %kk {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x32xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x8x32xbf16>, tensor<1x4x32x8xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %ss = poot.mul %s, %one : tensor<1x4x8x8xbf16>, tensor<bf16>
  // attn_weights + causal_mask[:, :, :, : key_states.shape[-2]]
  %sm = poot.add %ss, %mask : tensor<1x4x8x8xbf16>, tensor<1x1x8x8xbf16>
  // softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
  %sf = poot.convert %sm : tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %d = poot.sub %sf, %mx : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %e = poot.exp %d : tensor<1x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %p = poot.div %e, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %pb = poot.convert %p : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xbf16>
  // attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2); reshape; o_proj
  %o = poot.matmul %pb, %vv : tensor<1x4x8x8xbf16>, tensor<1x4x8x32xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x8x32xbf16>
  %o3 = poot.reshape %ot : tensor<1x8x4x32xbf16> -> tensor<1x8x128xbf16>
  %wot = poot.transpose %wo {perm = array<i64: 1, 0>} : tensor<64x128xbf16>
  %y = poot.matmul %o3, %wot : tensor<1x8x128xbf16>, tensor<128x64xbf16>
  return %y : tensor<1x8x64xbf16>
}
