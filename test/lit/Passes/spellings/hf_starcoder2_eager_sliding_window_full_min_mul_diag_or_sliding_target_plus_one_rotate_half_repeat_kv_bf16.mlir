// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers 4.48-4.52, models/starcoder2/modeling_starcoder2.py:
// Starcoder2Attention.forward with eager_attention_forward, and the mask of
// Starcoder2Model._update_causal_mask /
// _prepare_4d_causal_attention_mask_with_cache_position (inherited from
// Mistral), bf16, a prefill of L = 8 tokens with attention_mask=None and a
// fresh DynamicCache (update returns the new keys). The mask: cache_position
// = arange(L); target_length = past_seen_tokens + L + 1 = 9 (no 2-D
// attention_mask); causal_mask = torch.full((L, 9), finfo(bf16).min);
// diagonal_attend_mask = arange(9) > cache_position.reshape(-1, 1);
// sliding_attend_mask = arange(9) <= cache_position.reshape(-1, 1) -
// config.sliding_window; diagonal_attend_mask.bitwise_or_(sliding);
// causal_mask *= diagonal_attend_mask (bool promoted to bf16);
// causal_mask[None, None].expand(B, 1, -1, -1). The layer: q/k/v_proj(h)
// (their outputs are the inputs) .view(B, L, -1, D).transpose(1, 2);
// apply_rotary_pos_emb(q, k, cos, sin) with cos, sin [B, L, D] (already
// .to(bf16) by Starcoder2RotaryEmbedding) unsqueezed at 1, q * cos +
// rotate_half(q) * sin, rotate_half = cat((-x2, x1), -1); eager:
// repeat_kv (expand [B, Hkv, 4, L, D], reshape), matmul(q, k^T) * scaling,
// + attention_mask[:, :, :, :Lk] (the 9th column cut off), softmax(dim=-1,
// dtype=f32).to(bf16), matmul with v, transpose(1, 2), reshape(B, L, -1).
// B = 2, 8 query heads over 2 key/value heads, D = 16 (scaling 0.25),
// sliding_window = 4.
//
// Strongest form: two half-style rotaries (rotary_dim 16) on q and k, then
// poot.attention {causal, n_rep = 4, scale = 0.25, window = 4}: key t is
// hidden iff t > i or i - t >= 4, the finite finfo.min fill hides keys and
// every row keeps its diagonal; no tensor mask.

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @hf_starcoder2_eager_sliding_window_full_min_mul_diag_or_sliding_target_plus_one_rotate_half_repeat_kv_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal, window 4{{$}}
func.func @hf_starcoder2_eager_sliding_window_full_min_mul_diag_or_sliding_target_plus_one_rotate_half_repeat_kv_bf16(
    %q_lin: tensor<2x8x128xbf16>, %k_lin: tensor<2x8x32xbf16>, %v_lin: tensor<2x8x32xbf16>,
    %cos0: tensor<2x8x16xbf16>, %sin0: tensor<2x8x16xbf16>) -> tensor<2x8x128xbf16> {
  // _prepare_4d_causal_attention_mask_with_cache_position
  %cache_position = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %cp = poot.reshape %cache_position : tensor<8xi64> -> tensor<8x1xi64>
  %ar = poot.iota {dim = 0 : i64} : tensor<9xi64>
  %diag = poot.compare gt, %ar, %cp : tensor<9xi64>, tensor<8x1xi64>
  %sw = poot.constant dense<4> : tensor<i64>
  %cpw = poot.sub %cp, %sw : tensor<8x1xi64>, tensor<i64>
  %sliding = poot.compare le, %ar, %cpw : tensor<9xi64>, tensor<8x1xi64>
  %dsm = poot.or %diag, %sliding : tensor<8x9xi1>, tensor<8x9xi1>
  %full = poot.constant dense<-3.38953139E+38> : tensor<8x9xbf16>
  %dsf = poot.convert %dsm : tensor<8x9xi1> -> tensor<8x9xbf16>
  %cm = poot.mul %full, %dsf : tensor<8x9xbf16>, tensor<8x9xbf16>
  %cm4 = poot.reshape %cm : tensor<8x9xbf16> -> tensor<1x1x8x9xbf16>
  %causal_mask = poot.broadcast %cm4 {shape = array<i64: 2, 1, 8, 9>} : tensor<1x1x8x9xbf16>
  // q/k/v_proj(h).view(hidden_shape).transpose(1, 2)
  %q4 = poot.reshape %q_lin : tensor<2x8x128xbf16> -> tensor<2x8x8x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x8x16xbf16>
  %k4 = poot.reshape %k_lin : tensor<2x8x32xbf16> -> tensor<2x8x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xbf16>
  %v4 = poot.reshape %v_lin : tensor<2x8x32xbf16> -> tensor<2x8x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xbf16>
  // apply_rotary_pos_emb: cos.unsqueeze(1), sin.unsqueeze(1)
  %cos = poot.reshape %cos0 : tensor<2x8x16xbf16> -> tensor<2x1x8x16xbf16>
  %sin = poot.reshape %sin0 : tensor<2x8x16xbf16> -> tensor<2x1x8x16xbf16>
  // q_embed = (q * cos) + (rotate_half(q) * sin)
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 8, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x16xbf16>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 8, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x8x16xbf16>
  %nq2 = poot.neg %q2 : tensor<2x8x8x8xbf16>
  %qrh = poot.concat %nq2, %q1 {axis = 3 : i64} : tensor<2x8x8x8xbf16>, tensor<2x8x8x8xbf16>
  %qc = poot.mul %q, %cos : tensor<2x8x8x16xbf16>, tensor<2x1x8x16xbf16>
  %qs = poot.mul %qrh, %sin : tensor<2x8x8x16xbf16>, tensor<2x1x8x16xbf16>
  %q_embed = poot.add %qc, %qs : tensor<2x8x8x16xbf16>, tensor<2x8x8x16xbf16>
  // k_embed = (k * cos) + (rotate_half(k) * sin)
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x8x16xbf16>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 2, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x8x16xbf16>
  %nk2 = poot.neg %k2 : tensor<2x2x8x8xbf16>
  %krh = poot.concat %nk2, %k1 {axis = 3 : i64} : tensor<2x2x8x8xbf16>, tensor<2x2x8x8xbf16>
  %kc = poot.mul %k, %cos : tensor<2x2x8x16xbf16>, tensor<2x1x8x16xbf16>
  %ks = poot.mul %krh, %sin : tensor<2x2x8x16xbf16>, tensor<2x1x8x16xbf16>
  %k_embed = poot.add %kc, %ks : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>
  // eager_attention_forward: repeat_kv(key, 4), repeat_kv(value, 4)
  %k5 = poot.reshape %k_embed : tensor<2x2x8x16xbf16> -> tensor<2x2x1x8x16xbf16>
  %kx = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 8, 16>} : tensor<2x2x1x8x16xbf16>
  %key_states = poot.reshape %kx : tensor<2x2x4x8x16xbf16> -> tensor<2x8x8x16xbf16>
  %v5 = poot.reshape %v : tensor<2x2x8x16xbf16> -> tensor<2x2x1x8x16xbf16>
  %vx = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 8, 16>} : tensor<2x2x1x8x16xbf16>
  %value_states = poot.reshape %vx : tensor<2x2x4x8x16xbf16> -> tensor<2x8x8x16xbf16>
  // attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
  %kt = poot.transpose %key_states {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x8x16xbf16>
  %s0 = poot.matmul %q_embed, %kt : tensor<2x8x8x16xbf16>, tensor<2x8x16x8xbf16>
  %scaling = poot.constant dense<0.25> : tensor<bf16>
  %s = poot.mul %s0, %scaling : tensor<2x8x8x8xbf16>, tensor<bf16>
  // causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]; attn_weights + causal_mask
  %cms = poot.slice %causal_mask {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 1, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x1x8x9xbf16>
  %sm = poot.add %s, %cms : tensor<2x8x8x8xbf16>, tensor<2x1x8x8xbf16>
  // nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
  %sf = poot.convert %sm : tensor<2x8x8x8xbf16> -> tensor<2x8x8x8xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<2x8x8x8xf32>
  %d = poot.sub %sf, %mx : tensor<2x8x8x8xf32>, tensor<2x8x8x1xf32>
  %e = poot.exp %d : tensor<2x8x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x8x8xf32>
  %p = poot.div %e, %z : tensor<2x8x8x8xf32>, tensor<2x8x8x1xf32>
  %pb = poot.convert %p : tensor<2x8x8x8xf32> -> tensor<2x8x8x8xbf16>
  // attn_output = torch.matmul(attn_weights, value_states).transpose(1, 2); reshape(*input_shape, -1)
  %o = poot.matmul %pb, %value_states : tensor<2x8x8x8xbf16>, tensor<2x8x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x8x16xbf16>
  %out = poot.reshape %ot : tensor<2x8x8x16xbf16> -> tensor<2x8x128xbf16>
  return %out : tensor<2x8x128xbf16>
}
