// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.50.0,
// src/transformers/models/gpt_neox/modeling_gpt_neox.py (Pythia),
// GPTNeoXAttention.forward with eager_attention_forward, bf16, prefill of
// S = 8 tokens with no attention_mask and an empty DynamicCache (its
// update returns the new key and value as they are). The fused
// query_key_value output (the input here) is .view(B, S, -1, 3 * D)
// .transpose(1, 2) and .chunk(3, dim=-1); apply_rotary_pos_emb with cos,
// sin [1, S, rotary_ndims] (GPTNeoXRotaryEmbedding's output, .to(bf16);
// inputs here) unsqueezed at 1: rotary_dim = cos.shape[-1] = int(D *
// rotary_pct) = int(16 * 0.25) = 4; q_rot, q_pass = q[..., :4], q[..., 4:];
// q_rot * cos + rotate_half(q_rot) * sin (rotate_half: cat(-x2, x1) of
// the halves); cat([q_embed, q_pass], -1); k likewise.
// eager_attention_forward: matmul(q, k.transpose(2, 3)) * scaling
// (head_size ** -0.5 = 0.25); + attention_mask[:, :, :, :K];
// softmax(dim=-1, dtype=f32).to(bf16); matmul with v; transpose(1, 2);
// reshape(B, S, -1). The mask is GPTNeoXModel._update_causal_mask ->
// _prepare_4d_causal_attention_mask_with_cache_position(None,
// sequence_length=8, target_length = past_seen_tokens + S + 1 = 9, bf16,
// cache_position = arange(0, 8)): full((8, 9), finfo(bf16).min);
// triu(diagonal=1); *= arange(9) > cache_position.reshape(-1, 1);
// [None, None].expand(B, 1, -1, -1). B = 2, H = 4, D = 16.
//
// Strongest form: two rotate-half rotaries over the first 4 of 16
// channels (the pass-through concatenated back); the mask hides t > i
// (the triu and the arange product agree; the bf16 finfo.min fill hides
// keys, every row keeps key 0; the ninth column is sliced off): one fused
// op, causal, n_rep 1, scale 1/4, no tensor mask:
//   poot.rope ... {rotary_dim = 4 : i64, style = "half"} (q and k)
//   poot.attention q, k, v {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-LABEL: func.func @hf_gpt_neox_qkv_chunk_partial_rotary_quarter_triu_min_mul_cache_position_slice_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 4 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16>, tensor<2x4x8x16xbf16> -> tensor<2x4x8x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @hf_gpt_neox_qkv_chunk_partial_rotary_quarter_triu_min_mul_cache_position_slice_bf16(
    %qkv_out: tensor<2x8x192xbf16>, %cos: tensor<1x8x4xbf16>, %sin: tensor<1x8x4xbf16>)
    -> tensor<2x8x64xbf16> {
  // GPTNeoXModel.forward: cache_position = torch.arange(past_seen_tokens, past_seen_tokens + S)
  %cache_position = poot.iota {dim = 0 : i64} : tensor<8xi64>
  // causal_mask = torch.full((sequence_length, target_length), fill_value=min_dtype)
  %min = poot.constant dense<0xFF7F> : tensor<8x9xbf16>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  // causal_mask = torch.triu(causal_mask, diagonal=1)
  %row = poot.iota {dim = 0 : i64} : tensor<8x9xi64>
  %col = poot.iota {dim = 1 : i64} : tensor<8x9xi64>
  %cmr = poot.sub %col, %row : tensor<8x9xi64>, tensor<8x9xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %upper = poot.compare ge, %cmr, %one : tensor<8x9xi64>, tensor<i64>
  %triu = poot.select %upper, %min, %zero : tensor<8x9xi1>, tensor<8x9xbf16>, tensor<bf16>
  // causal_mask *= torch.arange(target_length) > cache_position.reshape(-1, 1)
  %ar = poot.iota {dim = 0 : i64} : tensor<9xi64>
  %cp = poot.reshape %cache_position : tensor<8xi64> -> tensor<8x1xi64>
  %after = poot.compare gt, %ar, %cp : tensor<9xi64>, tensor<8x1xi64>
  %afterf = poot.convert %after : tensor<8x9xi1> -> tensor<8x9xbf16>
  %cm = poot.mul %triu, %afterf : tensor<8x9xbf16>, tensor<8x9xbf16>
  // causal_mask[None, None, :, :].expand(batch_size, 1, -1, -1)
  %cm4 = poot.reshape %cm : tensor<8x9xbf16> -> tensor<1x1x8x9xbf16>
  %attention_mask = poot.broadcast %cm4 {shape = array<i64: 2, 1, 8, 9>} : tensor<1x1x8x9xbf16>
  // qkv = self.query_key_value(hidden_states).view(hidden_shape).transpose(1, 2)
  %qkv4 = poot.reshape %qkv_out : tensor<2x8x192xbf16> -> tensor<2x8x4x48xbf16>
  %qkv = poot.transpose %qkv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x48xbf16>
  // query_states, key_states, value_states = qkv.chunk(3, dim=-1)
  %q = poot.slice %qkv {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x48xbf16>
  %k = poot.slice %qkv {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 4, 8, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x48xbf16>
  %v = poot.slice %qkv {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 2, 4, 8, 48>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x48xbf16>
  // apply_rotary_pos_emb: cos = cos.unsqueeze(1); sin = sin.unsqueeze(1)
  %c4 = poot.reshape %cos : tensor<1x8x4xbf16> -> tensor<1x1x8x4xbf16>
  %s4 = poot.reshape %sin : tensor<1x8x4xbf16> -> tensor<1x1x8x4xbf16>
  // q_rot, q_pass = q[..., :rotary_dim], q[..., rotary_dim:]
  %q_rot = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 8, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x16xbf16>
  %q_pass = poot.slice %q {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 2, 4, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x16xbf16>
  // q_embed = (q_rot * cos) + (rotate_half(q_rot) * sin)
  %qx1 = poot.slice %q_rot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 8, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x4xbf16>
  %qx2 = poot.slice %q_rot {start = array<i64: 0, 0, 0, 2>, limit = array<i64: 2, 4, 8, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x4xbf16>
  %qnx2 = poot.neg %qx2 : tensor<2x4x8x2xbf16>
  %qrh = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<2x4x8x2xbf16>, tensor<2x4x8x2xbf16>
  %qa = poot.mul %q_rot, %c4 : tensor<2x4x8x4xbf16>, tensor<1x1x8x4xbf16>
  %qb = poot.mul %qrh, %s4 : tensor<2x4x8x4xbf16>, tensor<1x1x8x4xbf16>
  %q_embed = poot.add %qa, %qb : tensor<2x4x8x4xbf16>, tensor<2x4x8x4xbf16>
  // q_embed = torch.cat([q_embed, q_pass], dim=-1)
  %qr = poot.concat %q_embed, %q_pass {axis = 3 : i64} : tensor<2x4x8x4xbf16>, tensor<2x4x8x12xbf16>
  // the same on k
  %k_rot = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 8, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x16xbf16>
  %k_pass = poot.slice %k {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 2, 4, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x16xbf16>
  %kx1 = poot.slice %k_rot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 8, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x4xbf16>
  %kx2 = poot.slice %k_rot {start = array<i64: 0, 0, 0, 2>, limit = array<i64: 2, 4, 8, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x8x4xbf16>
  %knx2 = poot.neg %kx2 : tensor<2x4x8x2xbf16>
  %krh = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<2x4x8x2xbf16>, tensor<2x4x8x2xbf16>
  %ka = poot.mul %k_rot, %c4 : tensor<2x4x8x4xbf16>, tensor<1x1x8x4xbf16>
  %kb = poot.mul %krh, %s4 : tensor<2x4x8x4xbf16>, tensor<1x1x8x4xbf16>
  %k_embed = poot.add %ka, %kb : tensor<2x4x8x4xbf16>, tensor<2x4x8x4xbf16>
  %kr = poot.concat %k_embed, %k_pass {axis = 3 : i64} : tensor<2x4x8x4xbf16>, tensor<2x4x8x12xbf16>
  // eager_attention_forward: attn_weights = torch.matmul(query, key.transpose(2, 3)) * scaling
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x8x16xbf16>
  %s = poot.matmul %qr, %kt : tensor<2x4x8x16xbf16>, tensor<2x4x16x8xbf16>
  %scaling = poot.constant dense<2.500000e-01> : tensor<bf16>
  %sc = poot.mul %s, %scaling : tensor<2x4x8x8xbf16>, tensor<bf16>
  // causal_mask = attention_mask[:, :, :, : key.shape[-2]]; attn_weights = attn_weights + causal_mask
  %causal_mask = poot.slice %attention_mask {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 1, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x1x8x9xbf16>
  %sm = poot.add %sc, %causal_mask : tensor<2x4x8x8xbf16>, tensor<2x1x8x8xbf16>
  // nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query.dtype)
  %sf = poot.convert %sm : tensor<2x4x8x8xbf16> -> tensor<2x4x8x8xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %d = poot.sub %sf, %mx : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %e = poot.exp %d : tensor<2x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %p = poot.div %e, %z : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %pb = poot.convert %p : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xbf16>
  // attn_output = torch.matmul(attn_weights, value); attn_output.transpose(1, 2).contiguous()
  %o = poot.matmul %pb, %v : tensor<2x4x8x8xbf16>, tensor<2x4x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xbf16>
  // attn_output.reshape(*input_shape, -1)
  %out = poot.reshape %ot : tensor<2x8x4x16xbf16> -> tensor<2x8x64xbf16>
  return %out : tensor<2x8x64xbf16>
}
