// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.53, src/transformers/models/deepseek_v3/
// modeling_deepseek_v3.py, DeepseekV3Attention.forward with
// eager_attention_forward, rope_interleave=True, no yarn (mscale 1, so
// scaling = qk_head_dim ** -0.5), prompt, no cache, bf16. Linears left
// outside: q_states = q_proj(h) [B, L, H * 24]; kv = kv_b_proj(...) [B, L,
// H * (16 + 16)]; k_rot = the rope slice of kv_a_proj_with_mqa(h) [B, L, 8].
// q_states.view(B, L, -1, 24).transpose(1, 2); q_pass, q_rot = split([16,
// 8], -1); k_pass = kv.view(B, L, -1, 32).transpose(1, 2); k_pass,
// value_states = split([16, 16], -1); k_rot.view(B, 1, L, 8);
// apply_rotary_pos_emb_interleave: cos.unsqueeze(1), sin.unsqueeze(1); q =
// q.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d) (k
// likewise); q * cos + rotate_half(q) * sin (cos, sin: cat(freqs, freqs)
// tables in bf16); k_rot.expand(*k_pass.shape[:-1], -1); query_states =
// cat((q_pass, q_rot), -1), key_states = cat((k_pass, k_rot), -1). Mask:
// masking_utils create_causal_mask, eager: kv_arange <= cache_position
// .view(-1, 1), [None, None].expand(B, -1, -1, -1), where(mask, 0.0,
// finfo(bf16).min). eager_attention_forward: repeat_kv with groups 1 (no
// op); matmul(q, k.transpose(2, 3)) * scaling; + mask[:, :, :, :Lk];
// softmax(dim=-1, f32).to(bf16); matmul with v; transpose(1, 2). B = 1,
// H = 4, L = 6, qk_nope 16, rope 8, qk_head_dim 24, v 16.
//
// Strongest form: two rotaries (the view/transpose reshuffle then
// rotate_half is the interleaved rotary, read back de-interleaved, the same
// on q and k); the attention with split keys: q = cat(q_nope, q_rot), keys
// k_nope per head plus the one shared rope key k_shared [B, 1, L, 8]; v
// dim 16 != 24; every row keeps its diagonal, so the finite fill is causal;
// n_rep 1; scale 24 ** -0.5 rounded to bf16 (0.2041015625):
//   poot.attention q, k_nope, v k_shared(k_rot : tensor<1x1x6x8xbf16>) {causal, n_rep = 1 : i64, scale = 0.2041015625 : f64} : tensor<1x4x6x24xbf16>, tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xbf16>
// CHECK-LABEL: func.func @hf_deepseek_v3_eager_mla_split_kpe_expand_rope_interleave_causal_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 8 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} k_shared(%{{.+}} : tensor<1x1x6x8xbf16>) {causal, n_rep = 1 : i64, scale = 0.2041015625 : f64} : tensor<1x4x6x24xbf16>, tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: split attention, n_rep 1, scale 0.204102, causal{{$}}
func.func @hf_deepseek_v3_eager_mla_split_kpe_expand_rope_interleave_causal_bf16(
    %q_states0: tensor<1x6x96xbf16>, %kv0: tensor<1x6x128xbf16>, %k_rot0: tensor<1x6x8xbf16>,
    %cos0: tensor<1x6x8xbf16>, %sin0: tensor<1x6x8xbf16>) -> tensor<1x6x4x16xbf16> {
  // q_states = q_states.view(query_shape).transpose(1, 2)
  %q4 = poot.reshape %q_states0 : tensor<1x6x96xbf16> -> tensor<1x6x4x24xbf16>
  %q_states = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x24xbf16>
  // q_pass, q_rot = torch.split(q_states, [qk_nope_head_dim, qk_rope_head_dim], dim=-1)
  %q_pass = poot.slice %q_states {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x24xbf16>
  %q_rot = poot.slice %q_states {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 4, 6, 24>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x24xbf16>
  // k_pass = kv_b_proj(...).view(key_shape).transpose(1, 2); k_pass, value_states = torch.split(k_pass, [16, 16], dim=-1)
  %kv4 = poot.reshape %kv0 : tensor<1x6x128xbf16> -> tensor<1x6x4x32xbf16>
  %kvt = poot.transpose %kv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xbf16>
  %k_pass = poot.slice %kvt {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x32xbf16>
  %value_states = poot.slice %kvt {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 4, 6, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x32xbf16>
  // k_rot = k_rot.view(batch_size, 1, seq_length, self.qk_rope_head_dim)
  %k_rot = poot.reshape %k_rot0 : tensor<1x6x8xbf16> -> tensor<1x1x6x8xbf16>
  // apply_rotary_pos_emb_interleave: cos = cos.unsqueeze(1); sin = sin.unsqueeze(1)
  %cos = poot.reshape %cos0 : tensor<1x6x8xbf16> -> tensor<1x1x6x8xbf16>
  %sin = poot.reshape %sin0 : tensor<1x6x8xbf16> -> tensor<1x1x6x8xbf16>
  // q = q.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
  %q5 = poot.reshape %q_rot : tensor<1x4x6x8xbf16> -> tensor<1x4x6x4x2xbf16>
  %q5t = poot.transpose %q5 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x4x6x4x2xbf16>
  %qd = poot.reshape %q5t : tensor<1x4x6x2x4xbf16> -> tensor<1x4x6x8xbf16>
  // k = k.view(b, h, s, d // 2, 2).transpose(4, 3).reshape(b, h, s, d)
  %k5 = poot.reshape %k_rot : tensor<1x1x6x8xbf16> -> tensor<1x1x6x4x2xbf16>
  %k5t = poot.transpose %k5 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x1x6x4x2xbf16>
  %kd = poot.reshape %k5t : tensor<1x1x6x2x4xbf16> -> tensor<1x1x6x8xbf16>
  // q_embed = (q * cos) + (rotate_half(q) * sin)
  %qx1 = poot.slice %qd {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xbf16>
  %qx2 = poot.slice %qd {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 4, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x8xbf16>
  %qnx2 = poot.neg %qx2 : tensor<1x4x6x4xbf16>
  %qrh = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x4x6x4xbf16>, tensor<1x4x6x4xbf16>
  %qa = poot.mul %qd, %cos : tensor<1x4x6x8xbf16>, tensor<1x1x6x8xbf16>
  %qb = poot.mul %qrh, %sin : tensor<1x4x6x8xbf16>, tensor<1x1x6x8xbf16>
  %q_embed = poot.add %qa, %qb : tensor<1x4x6x8xbf16>, tensor<1x4x6x8xbf16>
  // k_embed = (k * cos) + (rotate_half(k) * sin)
  %kx1 = poot.slice %kd {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x6x8xbf16>
  %kx2 = poot.slice %kd {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 1, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x6x8xbf16>
  %knx2 = poot.neg %kx2 : tensor<1x1x6x4xbf16>
  %krh = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<1x1x6x4xbf16>, tensor<1x1x6x4xbf16>
  %ka = poot.mul %kd, %cos : tensor<1x1x6x8xbf16>, tensor<1x1x6x8xbf16>
  %kb = poot.mul %krh, %sin : tensor<1x1x6x8xbf16>, tensor<1x1x6x8xbf16>
  %k_embed = poot.add %ka, %kb : tensor<1x1x6x8xbf16>, tensor<1x1x6x8xbf16>
  // k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
  %k_rot_x = poot.broadcast %k_embed {shape = array<i64: 1, 4, 6, 8>} : tensor<1x1x6x8xbf16>
  // query_states = torch.cat((q_pass, q_rot), dim=-1); key_states = torch.cat((k_pass, k_rot), dim=-1)
  %query_states = poot.concat %q_pass, %q_embed {axis = 3 : i64} : tensor<1x4x6x16xbf16>, tensor<1x4x6x8xbf16>
  %key_states = poot.concat %k_pass, %k_rot_x {axis = 3 : i64} : tensor<1x4x6x16xbf16>, tensor<1x4x6x8xbf16>
  // create_causal_mask (eager): kv_arange <= cache_position.view(-1, 1); where(mask, 0.0, finfo(bf16).min)
  %kv_arange = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cpv = poot.reshape %cp : tensor<6xi64> -> tensor<6x1xi64>
  %cmb = poot.compare le, %kv_arange, %cpv : tensor<6xi64>, tensor<6x1xi64>
  %cmb4 = poot.reshape %cmb : tensor<6x6xi1> -> tensor<1x1x6x6xi1>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %cmb4, %zero, %min : tensor<1x1x6x6xi1>, tensor<bf16>, tensor<bf16>
  // attn_weights = torch.matmul(query, key_states.transpose(2, 3)) * scaling
  %kt = poot.transpose %key_states {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x24xbf16>
  %w0 = poot.matmul %query_states, %kt : tensor<1x4x6x24xbf16>, tensor<1x4x24x6xbf16>
  %scaling = poot.constant dense<0.204124145> : tensor<bf16>
  %w1 = poot.mul %w0, %scaling : tensor<1x4x6x6xbf16>, tensor<bf16>
  // causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]; attn_weights = attn_weights + causal_mask
  %w2 = poot.add %w1, %mask : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
  // nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
  %wf = poot.convert %w2 : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %mx = poot.reduce_max %wf {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %wf, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %ph = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  // attn_output = torch.matmul(attn_weights, value_states); attn_output.transpose(1, 2).contiguous()
  %o = poot.matmul %ph, %value_states : tensor<1x4x6x6xbf16>, tensor<1x4x6x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xbf16>
  return %ot : tensor<1x6x4x16xbf16>
}
