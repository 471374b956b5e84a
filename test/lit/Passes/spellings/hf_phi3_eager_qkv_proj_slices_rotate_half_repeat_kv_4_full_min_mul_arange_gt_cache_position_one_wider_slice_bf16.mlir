// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers 4.51.3, src/transformers/models/phi3/
// modeling_phi3.py: Phi3Model.forward -> _update_causal_mask ->
// _prepare_4d_causal_attention_mask_with_cache_position, and
// Phi3Attention.forward with eager_attention_forward, bf16, a prompt with
// a fresh DynamicCache and attention_mask=None, config.sliding_window None
// (the Phi3Config default). cache_position = arange(past_seen_tokens,
// past_seen_tokens + L) with past 0; with no 2-D mask tensor, target_length
// = past_seen_tokens + sequence_length + 1 (one key wider than the keys);
// causal_mask = torch.full((L, target_length), finfo(bf16).min, bf16);
// diagonal_attend_mask = torch.arange(target_length) > cache_position
// .reshape(-1, 1); causal_mask *= diagonal_attend_mask; causal_mask[None,
// None, :, :].expand(B, 1, -1, -1). In the layer: qkv = self.qkv_proj(x)
// (left outside: its output is the input), query_states = qkv[...,
// :query_pos], key_states = qkv[..., query_pos : query_pos + Hkv * D],
// value_states = qkv[..., query_pos + Hkv * D :], each .view(B, L, -1,
// D).transpose(1, 2); apply_rotary_pos_emb(q, k, cos, sin) with cos, sin
// (Phi3RotaryEmbedding's outputs, .to(bf16), [B, L, D]) unsqueezed at 1,
// rotary_dim = cos.shape[-1] = D, so q_rot = q[..., :D] and the cat with
// the empty q[..., D:] is the identity (not written: poot has no empty
// tensors), q_embed = q_rot * cos + rotate_half(q_rot) * sin with
// rotate_half = cat((-x2, x1), -1); DynamicCache.update returns the new
// keys and values as they are on the first call; eager_attention_forward:
// repeat_kv (x[:, :, None].expand(B, Hkv, n_rep, L, D).reshape(B, H, L, D)),
// attn_weights = torch.matmul(q, k.transpose(2, 3)) * self.scaling (D ** -0.5),
// + attention_mask[:, :, :, :k.shape[-2]], softmax(dim=-1, dtype=f32)
// .to(bf16), matmul with v, transpose(1, 2).contiguous(), reshape(B, L, -1)
// (o_proj left outside). B = 1, L = 6, H = 8, Hkv = 2 (n_rep 4), D = 16.
//
// Strongest form: two rotate-half rotaries (q and k), then poot.attention
// q, k, v {causal, n_rep = 4, scale = 0.25}: the finfo.min fill (times the
// indicator: min or -0) sits on t > i alone, the cut to the first L keys
// leaves that band, and every row keeps key 0, so the fill hides exactly.

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @hf_phi3_eager_qkv_proj_slices_rotate_half_repeat_kv_4_full_min_mul_arange_gt_cache_position_one_wider_slice_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal{{$}}
func.func @hf_phi3_eager_qkv_proj_slices_rotate_half_repeat_kv_4_full_min_mul_arange_gt_cache_position_one_wider_slice_bf16(
    %qkv: tensor<1x6x192xbf16>, %cos: tensor<1x6x16xbf16>, %sin: tensor<1x6x16xbf16>)
    -> tensor<1x6x128xbf16> {
  // Phi3Model.forward: cache_position = torch.arange(past_seen_tokens, past_seen_tokens + L)
  %cache_position = poot.iota {dim = 0 : i64} : tensor<6xi64>
  // causal_mask = torch.full((sequence_length, target_length), fill_value=min_dtype, dtype=dtype)
  %full = poot.constant dense<0xFF7F> : tensor<6x7xbf16>
  // diagonal_attend_mask = torch.arange(target_length) > cache_position.reshape(-1, 1)
  %ar = poot.iota {dim = 0 : i64} : tensor<7xi64>
  %cp = poot.reshape %cache_position : tensor<6xi64> -> tensor<6x1xi64>
  %diag = poot.compare gt, %ar, %cp : tensor<7xi64>, tensor<6x1xi64>
  // causal_mask *= diagonal_attend_mask
  %diagf = poot.convert %diag : tensor<6x7xi1> -> tensor<6x7xbf16>
  %cm = poot.mul %full, %diagf : tensor<6x7xbf16>, tensor<6x7xbf16>
  // causal_mask[None, None, :, :].expand(batch_size, 1, -1, -1)
  %cm4 = poot.reshape %cm : tensor<6x7xbf16> -> tensor<1x1x6x7xbf16>
  // query_states = qkv[..., :query_pos]; key_states, value_states the next slices
  %qs = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 6, 128>, step = array<i64: 1, 1, 1>} : tensor<1x6x192xbf16>
  %ks = poot.slice %qkv {start = array<i64: 0, 0, 128>, limit = array<i64: 1, 6, 160>, step = array<i64: 1, 1, 1>} : tensor<1x6x192xbf16>
  %vs = poot.slice %qkv {start = array<i64: 0, 0, 160>, limit = array<i64: 1, 6, 192>, step = array<i64: 1, 1, 1>} : tensor<1x6x192xbf16>
  // .view(hidden_shape).transpose(1, 2)
  %q4 = poot.reshape %qs : tensor<1x6x128xbf16> -> tensor<1x6x8x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x8x16xbf16>
  %k4 = poot.reshape %ks : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %v4 = poot.reshape %vs : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  // apply_rotary_pos_emb: cos = cos.unsqueeze(1); sin = sin.unsqueeze(1)
  %c4 = poot.reshape %cos : tensor<1x6x16xbf16> -> tensor<1x1x6x16xbf16>
  %s4 = poot.reshape %sin : tensor<1x6x16xbf16> -> tensor<1x1x6x16xbf16>
  // q_rot = q[..., :rotary_dim] (all of D); q_embed = (q_rot * cos) + (rotate_half(q_rot) * sin)
  %q_rot = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x16xbf16>
  %qx1 = poot.slice %q_rot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x16xbf16>
  %qx2 = poot.slice %q_rot {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 8, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x6x16xbf16>
  %qnx2 = poot.neg %qx2 : tensor<1x8x6x8xbf16>
  %qrh = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x8x6x8xbf16>, tensor<1x8x6x8xbf16>
  %qc = poot.mul %q_rot, %c4 : tensor<1x8x6x16xbf16>, tensor<1x1x6x16xbf16>
  %qsn = poot.mul %qrh, %s4 : tensor<1x8x6x16xbf16>, tensor<1x1x6x16xbf16>
  %q_embed = poot.add %qc, %qsn : tensor<1x8x6x16xbf16>, tensor<1x8x6x16xbf16>
  // k_rot = k[..., :rotary_dim]; k_embed = (k_rot * cos) + (rotate_half(k_rot) * sin)
  %k_rot = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %kx1 = poot.slice %k_rot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %kx2 = poot.slice %k_rot {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %knx2 = poot.neg %kx2 : tensor<1x2x6x8xbf16>
  %krh = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  %kc = poot.mul %k_rot, %c4 : tensor<1x2x6x16xbf16>, tensor<1x1x6x16xbf16>
  %ksn = poot.mul %krh, %s4 : tensor<1x2x6x16xbf16>, tensor<1x1x6x16xbf16>
  %k_embed = poot.add %kc, %ksn : tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16>
  // repeat_kv(key, 4): hidden_states[:, :, None, :, :].expand(B, Hkv, n_rep, L, D).reshape(B, H, L, D)
  %k5 = poot.reshape %k_embed : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %kr = poot.reshape %kb : tensor<1x2x4x6x16xbf16> -> tensor<1x8x6x16xbf16>
  %v5 = poot.reshape %v : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %vr = poot.reshape %vb : tensor<1x2x4x6x16xbf16> -> tensor<1x8x6x16xbf16>
  // attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x6x16xbf16>
  %s = poot.matmul %q_embed, %kt : tensor<1x8x6x16xbf16>, tensor<1x8x16x6xbf16>
  %scaling = poot.constant dense<0.25> : tensor<bf16>
  %ss = poot.mul %s, %scaling : tensor<1x8x6x6xbf16>, tensor<bf16>
  // causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]; attn_weights + causal_mask
  %cms = poot.slice %cm4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x6x7xbf16>
  %sm = poot.add %ss, %cms : tensor<1x8x6x6xbf16>, tensor<1x1x6x6xbf16>
  // nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
  %smf = poot.convert %sm : tensor<1x8x6x6xbf16> -> tensor<1x8x6x6xf32>
  %mx = poot.reduce_max %smf {axis = 3 : i64, keepdim} : tensor<1x8x6x6xf32>
  %d = poot.sub %smf, %mx : tensor<1x8x6x6xf32>, tensor<1x8x6x1xf32>
  %e = poot.exp %d : tensor<1x8x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x6x6xf32>
  %p = poot.div %e, %z : tensor<1x8x6x6xf32>, tensor<1x8x6x1xf32>
  %pb = poot.convert %p : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xbf16>
  // attn_output = torch.matmul(attn_weights, value_states); transpose(1, 2).contiguous()
  %o = poot.matmul %pb, %vr : tensor<1x8x6x6xbf16>, tensor<1x8x6x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x6x16xbf16>
  // attn_output.reshape(*input_shape, -1).contiguous()
  %out = poot.reshape %ot : tensor<1x6x8x16xbf16> -> tensor<1x6x128xbf16>
  return %out : tensor<1x6x128xbf16>
}
