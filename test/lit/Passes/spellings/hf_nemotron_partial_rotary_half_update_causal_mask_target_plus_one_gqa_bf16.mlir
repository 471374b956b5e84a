// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.45.0, src/transformers/models/nemotron/
// modeling_nemotron.py, NemotronAttention.forward (eager) on a prompt with
// no attention_mask and a DynamicCache (empty), bf16. q/k/v projections are
// left outside: q [B, H, L, D], k, v [B, Hkv, L, D] after view().transpose(1,
// 2). position_embeddings (cos, sin) come from NemotronRotaryEmbedding with
// partial_rotary_factor 0.5, so rot_dim = D / 2 = 8, already .to(bf16).
// apply_rotary_pos_emb: cos.unsqueeze(1), sin.unsqueeze(1); rot_dim =
// cos.shape[-1]; q, q_pass = q[..., :rot_dim], q[..., rot_dim:] (k
// likewise); q_embed = q * cos + rotate_half(q) * sin with rotate_half =
// cat(-x[..., 4:], x[..., :4]); cat((q_embed, q_pass), -1). The mask is
// NemotronModel._update_causal_mask (Llama's): no attention_mask tensor, so
// target_length = past_seen_tokens + sequence_length + 1 = L + 1;
// _prepare_4d_causal_attention_mask_with_cache_position: full((L, L + 1),
// finfo(bf16).min); triu(diagonal=1); causal_mask *= arange(L + 1) >
// cache_position.reshape(-1, 1) (cache_position = arange(0, L));
// [None, None].expand(B, 1, -1, -1). In the layer: repeat_kv (n_rep 2,
// [:, :, None].expand().reshape()); matmul(q, k.transpose(2, 3)) /
// math.sqrt(head_dim); + attention_mask[:, :, :, :key_len] (the slice drops
// the extra column); softmax(dim=-1, dtype=f32).to(bf16); matmul with v.
// B = 1, H = 4, Hkv = 2, L = 6, D = 16.
//
// Strongest form: two half-style rotaries on the first 8 of 16 dims
// (rotary_dim 8); every row keeps its diagonal key, so the finite fill is
// exactly causal; GQA 4/2, scale 1/4, in bf16:
//   poot.attention q, k, v {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64} : tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
// CHECK-LABEL: func.func @hf_nemotron_partial_rotary_half_update_causal_mask_target_plus_one_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 8 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64} : tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal{{$}}
func.func @hf_nemotron_partial_rotary_half_update_causal_mask_target_plus_one_gqa_bf16(
    %q: tensor<1x4x6x16xbf16>, %k: tensor<1x2x6x16xbf16>, %v: tensor<1x2x6x16xbf16>,
    %cos0: tensor<1x6x8xbf16>, %sin0: tensor<1x6x8xbf16>) -> tensor<1x4x6x16xbf16> {
  // cos = cos.unsqueeze(unsqueeze_dim); sin = sin.unsqueeze(unsqueeze_dim)
  %cos = poot.reshape %cos0 : tensor<1x6x8xbf16> -> tensor<1x1x6x8xbf16>
  %sin = poot.reshape %sin0 : tensor<1x6x8xbf16> -> tensor<1x1x6x8xbf16>
  // q, q_pass = q[..., :rot_dim], q[..., rot_dim:]
  %qr = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x16xbf16>
  %qp = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x16xbf16>
  %kr = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %kp = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  // q_embed = (q * cos) + (rotate_half(q) * sin)
  %qx1 = poot.slice %qr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xbf16>
  %qx2 = poot.slice %qr {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 4, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xbf16>
  %qnx2 = poot.neg %qx2 : tensor<1x4x6x4xbf16>
  %qrh = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x4x6x4xbf16>, tensor<1x4x6x4xbf16>
  %qa = poot.mul %qr, %cos : tensor<1x4x6x8xbf16>, tensor<1x1x6x8xbf16>
  %qb = poot.mul %qrh, %sin : tensor<1x4x6x8xbf16>, tensor<1x1x6x8xbf16>
  %qe = poot.add %qa, %qb : tensor<1x4x6x8xbf16>, tensor<1x4x6x8xbf16>
  // k_embed = (k * cos) + (rotate_half(k) * sin)
  %kx1 = poot.slice %kr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xbf16>
  %kx2 = poot.slice %kr {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xbf16>
  %knx2 = poot.neg %kx2 : tensor<1x2x6x4xbf16>
  %krh = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<1x2x6x4xbf16>, tensor<1x2x6x4xbf16>
  %ka = poot.mul %kr, %cos : tensor<1x2x6x8xbf16>, tensor<1x1x6x8xbf16>
  %kb = poot.mul %krh, %sin : tensor<1x2x6x8xbf16>, tensor<1x1x6x8xbf16>
  %ke = poot.add %ka, %kb : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  // torch.cat((q_embed, q_pass), dim=-1), torch.cat((k_embed, k_pass), dim=-1)
  %qq = poot.concat %qe, %qp {axis = 3 : i64} : tensor<1x4x6x8xbf16>, tensor<1x4x6x8xbf16>
  %kk = poot.concat %ke, %kp {axis = 3 : i64} : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  // causal_mask = torch.full((sequence_length, target_length), fill_value=min_dtype); torch.triu(causal_mask, diagonal=1)
  %full = poot.constant dense<-3.38953139E+38> : tensor<6x7xbf16>
  %row = poot.iota {dim = 0 : i64} : tensor<6x7xi64>
  %col = poot.iota {dim = 1 : i64} : tensor<6x7xi64>
  %cmr = poot.sub %col, %row : tensor<6x7xi64>, tensor<6x7xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %upper = poot.compare ge, %cmr, %one : tensor<6x7xi64>, tensor<i64>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %tri = poot.select %upper, %full, %zero : tensor<6x7xi1>, tensor<6x7xbf16>, tensor<bf16>
  // causal_mask *= torch.arange(target_length) > cache_position.reshape(-1, 1)
  %ar = poot.iota {dim = 0 : i64} : tensor<7xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cp2 = poot.reshape %cp : tensor<6xi64> -> tensor<6x1xi64>
  %gt = poot.compare gt, %ar, %cp2 : tensor<7xi64>, tensor<6x1xi64>
  %gtf = poot.convert %gt : tensor<6x7xi1> -> tensor<6x7xbf16>
  %cm = poot.mul %tri, %gtf : tensor<6x7xbf16>, tensor<6x7xbf16>
  // causal_mask[None, None, :, :].expand(batch_size, 1, -1, -1)
  %cm4 = poot.reshape %cm : tensor<6x7xbf16> -> tensor<1x1x6x7xbf16>
  // repeat_kv(key_states, n_rep): [:, :, None, :, :].expand(...).reshape(...)
  %k5 = poot.reshape %kk : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %kx = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %krep = poot.reshape %kx : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %v5 = poot.reshape %v : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %vx = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %vrep = poot.reshape %vx : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  // attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xbf16>
  %w0 = poot.matmul %qq, %kt : tensor<1x4x6x16xbf16>, tensor<1x4x16x6xbf16>
  %sq = poot.constant dense<4.0> : tensor<bf16>
  %w1 = poot.div %w0, %sq : tensor<1x4x6x6xbf16>, tensor<bf16>
  // causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]; attn_weights = attn_weights + causal_mask
  %cms = poot.slice %cm4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x6x7xbf16>
  %w2 = poot.add %w1, %cms : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
  // nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
  %wf = poot.convert %w2 : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %mx = poot.reduce_max %wf {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %wf, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %ph = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  // attn_output = torch.matmul(attn_weights, value_states)
  %o = poot.matmul %ph, %vrep : tensor<1x4x6x6xbf16>, tensor<1x4x6x16xbf16>
  return %o : tensor<1x4x6x16xbf16>
}
