// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.30.0, src/transformers/models/codegen/
// modeling_codegen.py, CodeGenAttention.forward and _attn, model in f16
// (model.half()), prompt, no layer_past, attention_mask None. The qkv_proj
// output [B, T, 3E] is the input; mp_num = 4: qkv.reshape(B, T, 4, -1);
// query, value, key = split(qkv_split, local_dim = 16, -1) (q, v, k order);
// _split_heads: reshape(..., n_head // mp_num, dim_head), reshape(B, T, -1,
// dim_head); value.permute(0, 2, 1, 3). embed_positions is a plain
// attribute from create_sinusoidal_positions (cat(sin, cos), f32, not a
// buffer, so .half() leaves it f32), an input here; sincos =
// embed_positions[position_ids]; sin, cos = split(sincos, 4, -1);
// rotary_dim 8: k_rot = key[..., :8], k_pass = key[..., 8:] (q likewise);
// apply_rotary_pos_emb: repeat_interleave(sin[:, :, None, :], 2, 3) (cos
// likewise); tensor * cos + rotate_every_two(tensor) * sin with
// rotate_every_two = stack((-x[..., 1::2], x[..., ::2]), -1).flatten(-2);
// f16 * f32 promotes the rotated part to f32, and cat([k_rot, k_pass])
// promotes the whole key (query likewise) to f32; permute(0, 2, 1, 3).
// _attn: causal_mask = self.causal_mask[:, :, k - q : k, :k] (bool tril
// buffer of max_positions 16); query.to(f32), key.to(f32) (no ops);
// matmul(q, k^T); / self.scale_attn (sqrt(tensor(16., f32)) = 4, f32);
// where(causal_mask, w, tensor(finfo(f32).min)); Softmax(dim=-1);
// .to(value.dtype) (f16); matmul with v (f16); _merge_heads: permute(0, 2,
// 1, 3).view(B, T, E). B = 2, T = 6, H = 4, D = 16, E = 64.
//
// Strongest form: two interleaved rotaries on the first 8 of 16 dims of the
// f32-promoted q and k; every row keeps its diagonal, so the finite fill
// is causal; n_rep 1, scale 1/4; q and k are f32 and the probabilities are
// rounded to f16 for the f16 product with v, so the fused op runs in f32
// (v upcast) with its output rounded to f16:
//   poot.attention q, k, v {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32> -> tensor<2x4x6x16xf32>
// CHECK-LABEL: func.func @hf_codegen_mp_num_qvk_split_rotate_every_two_f32_sincos_where_after_scale_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 8 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32> -> tensor<2x4x6x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @hf_codegen_mp_num_qvk_split_rotate_every_two_f32_sincos_where_after_scale_f16(
    %qkv: tensor<2x6x192xf16>, %embed_positions: tensor<16x8xf32> {poot.name = "embed_positions"},
    %position_ids: tensor<2x6xi64> {poot.name = "position_ids", poot.range = array<i64: 0, 16>}) -> tensor<2x6x64xf16> {
  // qkv_split = qkv.reshape(qkv.shape[:-1] + (mp_num, -1))
  %qkv_split = poot.reshape %qkv : tensor<2x6x192xf16> -> tensor<2x6x4x48xf16>
  // query, value, key = torch.split(qkv_split, local_dim, dim=-1)
  %query0 = poot.slice %qkv_split {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 6, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x6x4x48xf16>
  %value0 = poot.slice %qkv_split {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 6, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x6x4x48xf16>
  %key0 = poot.slice %qkv_split {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 2, 6, 4, 48>, step = array<i64: 1, 1, 1, 1>} : tensor<2x6x4x48xf16>
  // _split_heads: x.reshape(x.shape[:-1] + (n_head // mp_num, dim_head)); reshape(x.shape[:-2] + (-1,) + reshaped.shape[-1:])
  %q5 = poot.reshape %query0 : tensor<2x6x4x16xf16> -> tensor<2x6x4x1x16xf16>
  %query = poot.reshape %q5 : tensor<2x6x4x1x16xf16> -> tensor<2x6x4x16xf16>
  %k5 = poot.reshape %key0 : tensor<2x6x4x16xf16> -> tensor<2x6x4x1x16xf16>
  %key = poot.reshape %k5 : tensor<2x6x4x1x16xf16> -> tensor<2x6x4x16xf16>
  %v5 = poot.reshape %value0 : tensor<2x6x4x16xf16> -> tensor<2x6x4x1x16xf16>
  %value1 = poot.reshape %v5 : tensor<2x6x4x1x16xf16> -> tensor<2x6x4x16xf16>
  // value = value.permute(0, 2, 1, 3)
  %value = poot.transpose %value1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf16>
  // sincos = embed_positions[position_ids]; sin, cos = torch.split(sincos, sincos.shape[-1] // 2, dim=-1)
  %sincos = poot.gather %embed_positions[%position_ids] {axis = 0 : i64} : tensor<16x8xf32>, tensor<2x6xi64>
  %sin0 = poot.slice %sincos {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 6, 4>, step = array<i64: 1, 1, 1>} : tensor<2x6x8xf32>
  %cos0 = poot.slice %sincos {start = array<i64: 0, 0, 4>, limit = array<i64: 2, 6, 8>, step = array<i64: 1, 1, 1>} : tensor<2x6x8xf32>
  // apply_rotary_pos_emb: sin = torch.repeat_interleave(sin[:, :, None, :], 2, 3); cos likewise
  %sin5 = poot.reshape %sin0 : tensor<2x6x4xf32> -> tensor<2x6x1x4x1xf32>
  %sinb = poot.broadcast %sin5 {shape = array<i64: 2, 6, 1, 4, 2>} : tensor<2x6x1x4x1xf32>
  %sin = poot.reshape %sinb : tensor<2x6x1x4x2xf32> -> tensor<2x6x1x8xf32>
  %cos5 = poot.reshape %cos0 : tensor<2x6x4xf32> -> tensor<2x6x1x4x1xf32>
  %cosb = poot.broadcast %cos5 {shape = array<i64: 2, 6, 1, 4, 2>} : tensor<2x6x1x4x1xf32>
  %cos = poot.reshape %cosb : tensor<2x6x1x4x2xf32> -> tensor<2x6x1x8xf32>
  // k_rot = key[:, :, :, : self.rotary_dim]; k_pass = key[:, :, :, self.rotary_dim :]
  %k_rot = poot.slice %key {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 6, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x6x4x16xf16>
  %k_pass = poot.slice %key {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 6, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x6x4x16xf16>
  %q_rot = poot.slice %query {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 6, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x6x4x16xf16>
  %q_pass = poot.slice %query {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 6, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x6x4x16xf16>
  // k_rot = apply_rotary_pos_emb(k_rot, sin, cos): (tensor * cos) + (rotate_every_two(tensor) * sin), f16 x f32 -> f32
  %krf = poot.convert %k_rot : tensor<2x6x4x8xf16> -> tensor<2x6x4x8xf32>
  %ka = poot.mul %krf, %cos : tensor<2x6x4x8xf32>, tensor<2x6x1x8xf32>
  %kx1 = poot.slice %k_rot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 6, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<2x6x4x8xf16>
  %kx2 = poot.slice %k_rot {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 2, 6, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<2x6x4x8xf16>
  %knx2 = poot.neg %kx2 : tensor<2x6x4x4xf16>
  %ks1 = poot.reshape %knx2 : tensor<2x6x4x4xf16> -> tensor<2x6x4x4x1xf16>
  %ks2 = poot.reshape %kx1 : tensor<2x6x4x4xf16> -> tensor<2x6x4x4x1xf16>
  %kst = poot.concat %ks1, %ks2 {axis = 4 : i64} : tensor<2x6x4x4x1xf16>, tensor<2x6x4x4x1xf16>
  %krot2 = poot.reshape %kst : tensor<2x6x4x4x2xf16> -> tensor<2x6x4x8xf16>
  %krot2f = poot.convert %krot2 : tensor<2x6x4x8xf16> -> tensor<2x6x4x8xf32>
  %kb = poot.mul %krot2f, %sin : tensor<2x6x4x8xf32>, tensor<2x6x1x8xf32>
  %k_rot_e = poot.add %ka, %kb : tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>
  // q_rot = apply_rotary_pos_emb(q_rot, sin, cos)
  %qrf = poot.convert %q_rot : tensor<2x6x4x8xf16> -> tensor<2x6x4x8xf32>
  %qa = poot.mul %qrf, %cos : tensor<2x6x4x8xf32>, tensor<2x6x1x8xf32>
  %qx1 = poot.slice %q_rot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 6, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<2x6x4x8xf16>
  %qx2 = poot.slice %q_rot {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 2, 6, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<2x6x4x8xf16>
  %qnx2 = poot.neg %qx2 : tensor<2x6x4x4xf16>
  %qs1 = poot.reshape %qnx2 : tensor<2x6x4x4xf16> -> tensor<2x6x4x4x1xf16>
  %qs2 = poot.reshape %qx1 : tensor<2x6x4x4xf16> -> tensor<2x6x4x4x1xf16>
  %qst = poot.concat %qs1, %qs2 {axis = 4 : i64} : tensor<2x6x4x4x1xf16>, tensor<2x6x4x4x1xf16>
  %qrot2 = poot.reshape %qst : tensor<2x6x4x4x2xf16> -> tensor<2x6x4x8xf16>
  %qrot2f = poot.convert %qrot2 : tensor<2x6x4x8xf16> -> tensor<2x6x4x8xf32>
  %qb = poot.mul %qrot2f, %sin : tensor<2x6x4x8xf32>, tensor<2x6x1x8xf32>
  %q_rot_e = poot.add %qa, %qb : tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>
  // key = torch.cat([k_rot, k_pass], dim=-1); query = torch.cat([q_rot, q_pass], dim=-1) (promoted to f32)
  %kpf = poot.convert %k_pass : tensor<2x6x4x8xf16> -> tensor<2x6x4x8xf32>
  %keyc = poot.concat %k_rot_e, %kpf {axis = 3 : i64} : tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>
  %qpf = poot.convert %q_pass : tensor<2x6x4x8xf16> -> tensor<2x6x4x8xf32>
  %queryc = poot.concat %q_rot_e, %qpf {axis = 3 : i64} : tensor<2x6x4x8xf32>, tensor<2x6x4x8xf32>
  // key = key.permute(0, 2, 1, 3); query = query.permute(0, 2, 1, 3)
  %kp = poot.transpose %keyc {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %qp = poot.transpose %queryc {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  // _attn: causal_mask = self.causal_mask[:, :, key_length - query_length : key_length, :key_length]
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %causal_mask = poot.slice %bias {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xi1>
  // attn_weights = torch.matmul(query, key.transpose(-1, -2))
  %kt = poot.transpose %kp {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x16xf32>
  %w0 = poot.matmul %qp, %kt : tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>
  // attn_weights = attn_weights / self.scale_attn
  %scale_attn = poot.constant dense<4.0> : tensor<f32>
  %w1 = poot.div %w0, %scale_attn : tensor<2x4x6x6xf32>, tensor<f32>
  // mask_value = torch.tensor(torch.finfo(attn_weights.dtype).min); attn_weights = torch.where(causal_mask, attn_weights, mask_value)
  %mask_value = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %w2 = poot.select %causal_mask, %w1, %mask_value : tensor<1x1x6x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>
  // attn_weights = nn.Softmax(dim=-1)(attn_weights)
  %mx = poot.reduce_max %w2 {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %d = poot.sub %w2, %mx : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %e = poot.exp %d : tensor<2x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %p = poot.div %e, %z : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  // attn_weights = attn_weights.to(value.dtype)
  %ph = poot.convert %p : tensor<2x4x6x6xf32> -> tensor<2x4x6x6xf16>
  // attn_output = torch.matmul(attn_weights, value)
  %o = poot.matmul %ph, %value : tensor<2x4x6x6xf16>, tensor<2x4x6x16xf16>
  // _merge_heads: tensor.permute(0, 2, 1, 3).contiguous(); view(new_shape)
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x16xf16>
  %out = poot.reshape %ot : tensor<2x6x4x16xf16> -> tensor<2x6x64xf16>
  return %out : tensor<2x6x64xf16>
}
