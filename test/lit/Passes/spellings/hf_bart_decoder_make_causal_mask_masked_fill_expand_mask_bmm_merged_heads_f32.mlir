// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.48.0, src/transformers/models/bart/
// modeling_bart.py, BartAttention.forward (eager; Marian, mBART, Pegasus,
// Blenderbot share it) as the decoder's self-attention without a past,
// f32, with a decoder_attention_mask input [B, T] of 0/1. The mask is
// BartDecoder's _prepare_4d_causal_attention_mask (modeling_attn_mask_utils
// .py, AttentionMaskConverter.to_4d): _make_causal_mask: full((T, T),
// finfo.min).masked_fill_(arange(T) < (arange(T) + 1).view(T, 1), 0)
// [None, None].expand(B, 1, T, T); _expand_mask: mask[:, None, None, :]
// .expand(B, 1, T, T).to(f32), inverted = 1.0 - expanded,
// inverted.masked_fill(inverted.to(bool), finfo.min); combined as
// causal_4d_mask.masked_fill(expanded_attn_mask.bool(), finfo.min). In the
// layer: query_states = q_proj(h) * scaling (head_dim ** -0.5, before any
// view); _shape(x, T, B) = view(B, T, H, D).transpose(1, 2).contiguous(),
// then view / reshape to (B * H, T, D); attn_weights = torch.bmm(q,
// k.transpose(1, 2)); attn_weights.view(B, H, T, T) + attention_mask,
// .view(B * H, T, T); softmax(dim=-1); bmm(attn_probs, v); view(B, H, T,
// D).transpose(1, 2).reshape(B, T, E). The projections are left outside
// (their outputs are the inputs). B = 2, T = 6, H = 4, D = 16.
//
// Strongest form: the bmm over the merged (B * H) batch is a product over
// [B, H]; the mask is one additive term of 0 and finfo.min over the
// condition t > i or the key is padding, per batch row [B, 1, T, T]. The
// padding input can hide all of a row's causal keys, and then the graph
// averages every key of the row (all exactly finfo.min), so the causal
// part cannot be split off as a meaning: a tensor mask, n_rep 1, scale
// 1/4:
//   poot.attention q, k, v mask(... : tensor<2x1x6x6xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-LABEL: func.func @hf_bart_decoder_make_causal_mask_masked_fill_expand_mask_bmm_merged_heads_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x6x6xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32>, tensor<2x4x6x16xf32> -> tensor<2x4x6x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_bart_decoder_make_causal_mask_masked_fill_expand_mask_bmm_merged_heads_f32(
    %q_lin: tensor<2x6x64xf32>, %k_lin: tensor<2x6x64xf32>, %v_lin: tensor<2x6x64xf32>,
    %attention_mask: tensor<2x6xi64> {poot.name = "decoder_attention_mask", poot.range = array<i64: 0, 2>})
    -> tensor<2x6x64xf32> {
  // _make_causal_mask: mask = torch.full((tgt_len, tgt_len), torch.finfo(dtype).min)
  %full = poot.constant dense<-3.40282347E+38> : tensor<6x6xf32>
  // mask_cond = torch.arange(mask.size(-1)); mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
  %mask_cond = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %one_i = poot.constant dense<1> : tensor<i64>
  %mc1 = poot.add %mask_cond, %one_i : tensor<6xi64>, tensor<i64>
  %mc1v = poot.reshape %mc1 : tensor<6xi64> -> tensor<6x1xi64>
  %vis = poot.compare lt, %mask_cond, %mc1v : tensor<6xi64>, tensor<6x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %causal = poot.select %vis, %zero, %full : tensor<6x6xi1>, tensor<f32>, tensor<6x6xf32>
  // mask[None, None, :, :].expand(bsz, 1, tgt_len, tgt_len + past_key_values_length)
  %causal4 = poot.reshape %causal : tensor<6x6xf32> -> tensor<1x1x6x6xf32>
  %causal_4d_mask = poot.broadcast %causal4 {shape = array<i64: 2, 1, 6, 6>} : tensor<1x1x6x6xf32>
  // _expand_mask: mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
  %am4 = poot.reshape %attention_mask : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
  %amx = poot.broadcast %am4 {shape = array<i64: 2, 1, 6, 6>} : tensor<2x1x1x6xi64>
  %expanded = poot.convert %amx : tensor<2x1x6x6xi64> -> tensor<2x1x6x6xf32>
  // inverted_mask = 1.0 - expanded_mask
  %one = poot.constant dense<1.0> : tensor<f32>
  %inverted = poot.sub %one, %expanded : tensor<f32>, tensor<2x1x6x6xf32>
  // inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)
  %invb = poot.convert %inverted : tensor<2x1x6x6xf32> -> tensor<2x1x6x6xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %expanded_attn_mask = poot.select %invb, %min, %inverted : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x1x6x6xf32>
  // causal_4d_mask.masked_fill(expanded_attn_mask.bool(), torch.finfo(dtype).min)
  %eb = poot.convert %expanded_attn_mask : tensor<2x1x6x6xf32> -> tensor<2x1x6x6xi1>
  %mask4d = poot.select %eb, %min, %causal_4d_mask : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x1x6x6xf32>
  // query_states = self.q_proj(hidden_states) * self.scaling
  %scaling = poot.constant dense<2.500000e-01> : tensor<f32>
  %qs = poot.mul %q_lin, %scaling : tensor<2x6x64xf32>, tensor<f32>
  // self._shape(...): view(bsz, seq_len, num_heads, head_dim).transpose(1, 2); .view(*proj_shape)
  %q4 = poot.reshape %qs : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %q3 = poot.reshape %qh : tensor<2x4x6x16xf32> -> tensor<8x6x16xf32>
  %k4 = poot.reshape %k_lin : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %k3 = poot.reshape %kh : tensor<2x4x6x16xf32> -> tensor<8x6x16xf32>
  %v4 = poot.reshape %v_lin : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %v3 = poot.reshape %vh : tensor<2x4x6x16xf32> -> tensor<8x6x16xf32>
  // attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
  %kt = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<8x6x16xf32>
  %w = poot.matmul %q3, %kt : tensor<8x6x16xf32>, tensor<8x16x6xf32>
  // attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask; .view(bsz * self.num_heads, tgt_len, src_len)
  %w4 = poot.reshape %w : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  %wm = poot.add %w4, %mask4d : tensor<2x4x6x6xf32>, tensor<2x1x6x6xf32>
  %w3 = poot.reshape %wm : tensor<2x4x6x6xf32> -> tensor<8x6x6xf32>
  // nn.functional.softmax(attn_weights, dim=-1)
  %mx = poot.reduce_max %w3 {axis = 2 : i64, keepdim} : tensor<8x6x6xf32>
  %d = poot.sub %w3, %mx : tensor<8x6x6xf32>, tensor<8x6x1xf32>
  %e = poot.exp %d : tensor<8x6x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x6x6xf32>
  %p = poot.div %e, %z : tensor<8x6x6xf32>, tensor<8x6x1xf32>
  // attn_output = torch.bmm(attn_probs, value_states)
  %o = poot.matmul %p, %v3 : tensor<8x6x6xf32>, tensor<8x6x16xf32>
  // view(bsz, num_heads, tgt_len, head_dim).transpose(1, 2).reshape(bsz, tgt_len, embed_dim)
  %o4 = poot.reshape %o : tensor<8x6x16xf32> -> tensor<2x4x6x16xf32>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x16xf32>
  %out = poot.reshape %ot : tensor<2x6x4x16xf32> -> tensor<2x6x64xf32>
  return %out : tensor<2x6x64xf32>
}
