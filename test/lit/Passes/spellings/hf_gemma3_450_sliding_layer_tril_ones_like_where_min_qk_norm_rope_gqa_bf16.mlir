// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers 4.50.0 (the first Gemma 3 release), src/
// transformers/models/gemma3/modeling_gemma3.py, a sliding layer in a
// prefill without a cache (use_cache=False, no 2-D attention_mask), bf16,
// attn_implementation="eager". Gemma3TextModel._update_causal_mask ->
// _prepare_4d_causal_attention_mask_with_cache_position: cache_position =
// arange(0, L); causal_mask = torch.full((L, L), finfo(bf16).min);
// torch.triu(causal_mask, diagonal=1); causal_mask *= arange(L) >
// cache_position.reshape(-1, 1); [None, None, :, :].expand(B, 1, -1, -1).
// Gemma3DecoderLayer.forward (is_sliding): effective_seq_len = max(L,
// sliding_window); sliding_window_mask = torch.tril(torch.ones_like(mask,
// dtype=torch.bool), diagonal=-sliding_window); mask = torch.where(
// sliding_window_mask, min_dtype, mask); offset = max(0,
// last_cache_position - effective_seq_len) = 0; mask[:, :, :, offset :
// offset + effective_seq_len]. Gemma3Attention.forward: q/k/v_proj(h)
// .view(B, L, -1, head_dim).transpose(1, 2) (projections left outside);
// q_norm / k_norm = Gemma3RMSNorm over head_dim (x.float(), x *
// rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6), * (1.0 +
// weight.float()), .type_as(x)); apply_rotary_pos_emb with the local
// (cos, sin) [B, L, D] bf16 unsqueezed at 1, q * cos + rotate_half(q) *
// sin; mask.to(query_states); eager_attention_forward: repeat_kv
// (reshape/expand/reshape), matmul(q, k^T) * scaling with scaling =
// query_pre_attn_scalar ** -0.5 (24 ** -0.5, not head_dim ** -0.5),
// softcap None (Gemma 3 has no attn_logit_softcapping), + mask[:, :, :,
// :Lk], softmax(dim=-1, dtype=f32).to(bf16), @ v, transpose(1, 2)
// .contiguous(), reshape(B, L, -1) (o_proj left outside). B = 1, L = 8,
// sliding_window = 4, 4 query heads over 2 key/value heads, head_dim 16.
//
// Strongest form: the two RMSNorms stay, two rotate-half rotaries
// (rotary_dim 16) on the normalised q and k, then one fused op {causal,
// window = 4, n_rep = 2, scale = 24^-0.5 (0.2041..)}: the finfo.min terms
// hide t > i (triu times the cache_position compare, with pos 0) and
// i - t >= 4 (the tril of ones_like), every row keeps its own key, so the
// finite fill stands for -inf; no tensor mask.

// CHECK-LABEL: func.func @hf_gemma3_450_sliding_layer_tril_ones_like_where_min_qk_norm_rope_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 0.2041{{[0-9]*}} : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.2041{{[0-9]*}}, causal, window 4{{$}}
func.func @hf_gemma3_450_sliding_layer_tril_ones_like_where_min_qk_norm_rope_gqa_bf16(
    %q_lin: tensor<1x8x64xbf16>, %k_lin: tensor<1x8x32xbf16>, %v_lin: tensor<1x8x32xbf16>,
    %q_norm_weight: tensor<16xbf16>, %k_norm_weight: tensor<16xbf16>,
    %cos: tensor<1x8x16xbf16>, %sin: tensor<1x8x16xbf16>) -> tensor<1x8x64xbf16> {
  // _prepare_4d_causal_attention_mask_with_cache_position
  %cache_position = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %full = poot.constant dense<-3.38953139E+38> : tensor<8x8xbf16>
  %zb = poot.constant dense<0.0> : tensor<bf16>
  // torch.triu(causal_mask, diagonal=1)
  %ri = poot.iota {dim = 0 : i64} : tensor<8x8xi64>
  %ci = poot.iota {dim = 1 : i64} : tensor<8x8xi64>
  %cmr = poot.sub %ci, %ri : tensor<8x8xi64>, tensor<8x8xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %up = poot.compare ge, %cmr, %one : tensor<8x8xi64>, tensor<i64>
  %triu = poot.select %up, %full, %zb : tensor<8x8xi1>, tensor<8x8xbf16>, tensor<bf16>
  // causal_mask *= torch.arange(target_length) > cache_position.reshape(-1, 1)
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %cp2 = poot.reshape %cache_position : tensor<8xi64> -> tensor<8x1xi64>
  %gt = poot.compare gt, %ar, %cp2 : tensor<8xi64>, tensor<8x1xi64>
  %gtb = poot.convert %gt : tensor<8x8xi1> -> tensor<8x8xbf16>
  %cm = poot.mul %triu, %gtb : tensor<8x8xbf16>, tensor<8x8xbf16>
  // causal_mask[None, None, :, :].expand(batch_size, 1, -1, -1)
  %cm4 = poot.reshape %cm : tensor<8x8xbf16> -> tensor<1x1x8x8xbf16>
  %cmx = poot.broadcast %cm4 {shape = array<i64: 1, 1, 8, 8>} : tensor<1x1x8x8xbf16>
  // Gemma3DecoderLayer: sliding_window_mask = torch.tril(torch.ones_like(attention_mask, dtype=torch.bool), diagonal=-self.sliding_window)
  %ones = poot.constant dense<true> : tensor<1x1x8x8xi1>
  %false = poot.constant dense<false> : tensor<i1>
  %r4 = poot.iota {dim = 2 : i64} : tensor<1x1x8x8xi64>
  %c4 = poot.iota {dim = 3 : i64} : tensor<1x1x8x8xi64>
  %cmr4 = poot.sub %c4, %r4 : tensor<1x1x8x8xi64>, tensor<1x1x8x8xi64>
  %nw = poot.constant dense<-4> : tensor<i64>
  %low = poot.compare le, %cmr4, %nw : tensor<1x1x8x8xi64>, tensor<i64>
  %swm = poot.select %low, %ones, %false : tensor<1x1x8x8xi1>, tensor<1x1x8x8xi1>, tensor<i1>
  // attention_mask = torch.where(sliding_window_mask, min_dtype, attention_mask)
  %minb = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %am1 = poot.select %swm, %minb, %cmx : tensor<1x1x8x8xi1>, tensor<bf16>, tensor<1x1x8x8xbf16>
  // attention_mask[:, :, :, offset : offset + effective_seq_len] (offset = max(0, 0 - 8) = 0, effective_seq_len = 8)
  %am2 = poot.slice %am1 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x8x8xbf16>
  // q/k/v_proj(hidden_states).view(hidden_shape).transpose(1, 2)
  %q4 = poot.reshape %q_lin : tensor<1x8x64xbf16> -> tensor<1x8x4x16xbf16>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xbf16>
  %k4 = poot.reshape %k_lin : tensor<1x8x32xbf16> -> tensor<1x8x2x16xbf16>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xbf16>
  %v4 = poot.reshape %v_lin : tensor<1x8x32xbf16> -> tensor<1x8x2x16xbf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xbf16>
  %two = poot.constant dense<2.0> : tensor<f32>
  %nd = poot.constant dense<16.0> : tensor<f32>
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  // self.q_norm: Gemma3RMSNorm
  %qf = poot.convert %qh : tensor<1x4x8x16xbf16> -> tensor<1x4x8x16xf32>
  %qsq = poot.pow %qf, %two : tensor<1x4x8x16xf32>, tensor<f32>
  %qss = poot.reduce_sum %qsq {axis = 3 : i64, keepdim} : tensor<1x4x8x16xf32>
  %qms = poot.div %qss, %nd : tensor<1x4x8x1xf32>, tensor<f32>
  %qme = poot.add %qms, %eps : tensor<1x4x8x1xf32>, tensor<f32>
  %qrs = poot.rsqrt %qme : tensor<1x4x8x1xf32>
  %qxn = poot.mul %qf, %qrs : tensor<1x4x8x16xf32>, tensor<1x4x8x1xf32>
  %qwf = poot.convert %q_norm_weight : tensor<16xbf16> -> tensor<16xf32>
  %qw1 = poot.add %onef, %qwf : tensor<f32>, tensor<16xf32>
  %qxw = poot.mul %qxn, %qw1 : tensor<1x4x8x16xf32>, tensor<16xf32>
  %qn = poot.convert %qxw : tensor<1x4x8x16xf32> -> tensor<1x4x8x16xbf16>
  // self.k_norm: Gemma3RMSNorm
  %kf = poot.convert %kh : tensor<1x2x8x16xbf16> -> tensor<1x2x8x16xf32>
  %ksq = poot.pow %kf, %two : tensor<1x2x8x16xf32>, tensor<f32>
  %kss = poot.reduce_sum %ksq {axis = 3 : i64, keepdim} : tensor<1x2x8x16xf32>
  %kms = poot.div %kss, %nd : tensor<1x2x8x1xf32>, tensor<f32>
  %kme = poot.add %kms, %eps : tensor<1x2x8x1xf32>, tensor<f32>
  %krs = poot.rsqrt %kme : tensor<1x2x8x1xf32>
  %kxn = poot.mul %kf, %krs : tensor<1x2x8x16xf32>, tensor<1x2x8x1xf32>
  %kwf = poot.convert %k_norm_weight : tensor<16xbf16> -> tensor<16xf32>
  %kw1 = poot.add %onef, %kwf : tensor<f32>, tensor<16xf32>
  %kxw = poot.mul %kxn, %kw1 : tensor<1x2x8x16xf32>, tensor<16xf32>
  %kn = poot.convert %kxw : tensor<1x2x8x16xf32> -> tensor<1x2x8x16xbf16>
  // apply_rotary_pos_emb: cos.unsqueeze(1), sin.unsqueeze(1)
  %cos4 = poot.reshape %cos : tensor<1x8x16xbf16> -> tensor<1x1x8x16xbf16>
  %sin4 = poot.reshape %sin : tensor<1x8x16xbf16> -> tensor<1x1x8x16xbf16>
  // q_embed = (q * cos) + (rotate_half(q) * sin)
  %qx1 = poot.slice %qn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x16xbf16>
  %qx2 = poot.slice %qn {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x16xbf16>
  %qnx2 = poot.neg %qx2 : tensor<1x4x8x8xbf16>
  %qrot = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x4x8x8xbf16>, tensor<1x4x8x8xbf16>
  %qa = poot.mul %qn, %cos4 : tensor<1x4x8x16xbf16>, tensor<1x1x8x16xbf16>
  %qb = poot.mul %qrot, %sin4 : tensor<1x4x8x16xbf16>, tensor<1x1x8x16xbf16>
  %qe = poot.add %qa, %qb : tensor<1x4x8x16xbf16>, tensor<1x4x8x16xbf16>
  // k_embed = (k * cos) + (rotate_half(k) * sin)
  %kx1 = poot.slice %kn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x16xbf16>
  %kx2 = poot.slice %kn {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x16xbf16>
  %knx2 = poot.neg %kx2 : tensor<1x2x8x8xbf16>
  %krot = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<1x2x8x8xbf16>, tensor<1x2x8x8xbf16>
  %ka = poot.mul %kn, %cos4 : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>
  %kb = poot.mul %krot, %sin4 : tensor<1x2x8x16xbf16>, tensor<1x1x8x16xbf16>
  %ke = poot.add %ka, %kb : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
  // eager_attention_forward: repeat_kv(key, 2), repeat_kv(value, 2)
  %k5 = poot.reshape %ke : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %kx = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %kr = poot.reshape %kx : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  %v5 = poot.reshape %vh : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %vx = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %vr = poot.reshape %vx : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  // attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xbf16>
  %s0 = poot.matmul %qe, %kt : tensor<1x4x8x16xbf16>, tensor<1x4x16x8xbf16>
  %scaling = poot.constant dense<0.204124153> : tensor<bf16>
  %s1 = poot.mul %s0, %scaling : tensor<1x4x8x8xbf16>, tensor<bf16>
  // causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]; attn_weights + causal_mask
  %cmk = poot.slice %am2 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x8x8xbf16>
  %s = poot.add %s1, %cmk : tensor<1x4x8x8xbf16>, tensor<1x1x8x8xbf16>
  // nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
  %sf = poot.convert %s : tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %d = poot.sub %sf, %mx : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %e = poot.exp %d : tensor<1x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %p = poot.div %e, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %pb = poot.convert %p : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xbf16>
  // torch.matmul(attn_weights, value_states).transpose(1, 2).contiguous(); reshape(*input_shape, -1)
  %o = poot.matmul %pb, %vr : tensor<1x4x8x8xbf16>, tensor<1x4x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x8x16xbf16>
  %out = poot.reshape %ot : tensor<1x8x4x16xbf16> -> tensor<1x8x64xbf16>
  return %out : tensor<1x8x64xbf16>
}
