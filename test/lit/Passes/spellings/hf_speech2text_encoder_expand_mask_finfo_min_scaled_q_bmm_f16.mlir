// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.46.0, src/transformers/models/speech_to_text/
// modeling_speech_to_text.py, Speech2TextAttention.forward (copied from
// BartAttention) as Speech2TextEncoderLayer's self-attention, f16, eval.
// Speech2TextEncoder: attention_mask = _get_feature_vector_attention_mask
// (a 0/1 long [B, S], here the input), then _prepare_4d_attention_mask
// (modeling_attn_mask_utils.py, _expand_mask): mask[:, None, None, :]
// .expand(B, 1, T, S).to(f16); inverted = 1.0 - expanded;
// inverted.masked_fill(inverted.to(torch.bool), finfo(f16).min = -65504).
// In the layer: query_states = self.q_proj(hidden_states) * self.scaling
// (head_dim ** -0.5, on the merged [B, T, E] projection);
// _shape(x, T, B) = view(B, T, H, D).transpose(1, 2).contiguous(), then
// view(B * H, -1, D); attn_weights = torch.bmm(q, k.transpose(1, 2))
// [B * H, T, S]; attn_weights.view(B, H, T, S) + attention_mask, .view(B
// * H, T, S); nn.functional.softmax(dim=-1) (in f16, no upcast); bmm with
// v; view(B, H, T, D).transpose(1, 2).reshape(B, T, E). Projections left
// outside. B = 2, T = S = 8, H = 4, D = 16.
//
// Strongest form: the merged (B * H) bmm is a product over [B, H]; the
// mask is a finite additive term (0 or finfo.min) over the keys only, so
// a tensor mask over the keys only; an all-padding row
// averages every key (each score plus -65504), as the tensor mask does,
// so no zero_empty_rows; n_rep 1, scale 1/4 (exact in f16):
//   poot.attention q, k, v mask(... : tensor<2x1x8x8xf16>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// (the op spells out the rows of a mask: [B, 1, T, S] is its smallest).
// (The fused op takes a tensor mask with its rows spelled out, [B, 1, T,
// S]: the mask arithmetic itself now runs at [B, 1, 1, S], before the
// broadcast, and that is the smallest mask the op accepts.)
// Reached (checked against the oracle):
// CHECK-LABEL: func.func @hf_speech2text_encoder_expand_mask_finfo_min_scaled_q_bmm_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x8x8xf16>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_speech2text_encoder_expand_mask_finfo_min_scaled_q_bmm_f16(
    %q_lin: tensor<2x8x64xf16>, %k_lin: tensor<2x8x64xf16>, %v_lin: tensor<2x8x64xf16>,
    %attention_mask: tensor<2x8xi64> {poot.name = "attention_mask", poot.range = array<i64: 0, 2>})
    -> tensor<2x8x64xf16> {
  // _expand_mask: mask[:, None, None, :].expand(bsz, 1, tgt_len, src_len).to(dtype)
  %am4 = poot.reshape %attention_mask : tensor<2x8xi64> -> tensor<2x1x1x8xi64>
  %amx = poot.broadcast %am4 {shape = array<i64: 2, 1, 8, 8>} : tensor<2x1x1x8xi64>
  %expanded = poot.convert %amx : tensor<2x1x8x8xi64> -> tensor<2x1x8x8xf16>
  // inverted_mask = 1.0 - expanded_mask
  %one = poot.constant dense<1.0> : tensor<f16>
  %inverted = poot.sub %one, %expanded : tensor<f16>, tensor<2x1x8x8xf16>
  // inverted_mask.masked_fill(inverted_mask.to(torch.bool), torch.finfo(dtype).min)
  %invb = poot.convert %inverted : tensor<2x1x8x8xf16> -> tensor<2x1x8x8xi1>
  %min = poot.constant dense<-6.550400e+04> : tensor<f16>
  %mask4d = poot.select %invb, %min, %inverted : tensor<2x1x8x8xi1>, tensor<f16>, tensor<2x1x8x8xf16>
  // query_states = self.q_proj(hidden_states) * self.scaling
  %scaling = poot.constant dense<2.500000e-01> : tensor<f16>
  %qs = poot.mul %q_lin, %scaling : tensor<2x8x64xf16>, tensor<f16>
  // self._shape(...): view(bsz, seq_len, num_heads, head_dim).transpose(1, 2); .view(*proj_shape)
  %q4 = poot.reshape %qs : tensor<2x8x64xf16> -> tensor<2x8x4x16xf16>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf16>
  %q3 = poot.reshape %qh : tensor<2x4x8x16xf16> -> tensor<8x8x16xf16>
  %k4 = poot.reshape %k_lin : tensor<2x8x64xf16> -> tensor<2x8x4x16xf16>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf16>
  %k3 = poot.reshape %kh : tensor<2x4x8x16xf16> -> tensor<8x8x16xf16>
  %v4 = poot.reshape %v_lin : tensor<2x8x64xf16> -> tensor<2x8x4x16xf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf16>
  %v3 = poot.reshape %vh : tensor<2x4x8x16xf16> -> tensor<8x8x16xf16>
  // attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
  %kt = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<8x8x16xf16>
  %w = poot.matmul %q3, %kt : tensor<8x8x16xf16>, tensor<8x16x8xf16>
  // attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask; .view(bsz * self.num_heads, tgt_len, src_len)
  %w4 = poot.reshape %w : tensor<8x8x8xf16> -> tensor<2x4x8x8xf16>
  %wm = poot.add %w4, %mask4d : tensor<2x4x8x8xf16>, tensor<2x1x8x8xf16>
  %w3 = poot.reshape %wm : tensor<2x4x8x8xf16> -> tensor<8x8x8xf16>
  // nn.functional.softmax(attn_weights, dim=-1)
  %mx = poot.reduce_max %w3 {axis = 2 : i64, keepdim} : tensor<8x8x8xf16>
  %d = poot.sub %w3, %mx : tensor<8x8x8xf16>, tensor<8x8x1xf16>
  %e = poot.exp %d : tensor<8x8x8xf16>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x8x8xf16>
  %p = poot.div %e, %z : tensor<8x8x8xf16>, tensor<8x8x1xf16>
  // attn_output = torch.bmm(attn_probs, value_states)
  %o = poot.matmul %p, %v3 : tensor<8x8x8xf16>, tensor<8x8x16xf16>
  // view(bsz, num_heads, tgt_len, head_dim).transpose(1, 2).reshape(bsz, tgt_len, embed_dim)
  %o4 = poot.reshape %o : tensor<8x8x16xf16> -> tensor<2x4x8x16xf16>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf16>
  %out = poot.reshape %ot : tensor<2x8x4x16xf16> -> tensor<2x8x64xf16>
  return %out : tensor<2x8x64xf16>
}
