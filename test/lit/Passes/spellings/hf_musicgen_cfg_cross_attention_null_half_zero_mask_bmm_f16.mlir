// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Hugging Face transformers, MusicGen (models/musicgen/modeling_musicgen.py,
// the bmm MusicgenAttention of the 4.3x/4.4x releases), f16, the decoder's
// cross-attention on the first step of generate() with classifier-free
// guidance (guidance_scale > 1). _prepare_text_encoder_kwargs_for_generation
// appends the "null" condition: last_hidden_state = concatenate([
// last_hidden_state, zeros_like(last_hidden_state)], 0) and attention_mask
// = concatenate([attention_mask, zeros_like(attention_mask)], 0).
// MusicgenForConditionalGeneration.forward: enc_to_dec_proj (Linear, bias),
// then encoder_hidden_states * attention_mask[..., None]. The decoder makes
// the cross mask with _prepare_4d_attention_mask (_expand_mask: mask[:,
// None, None, :].expand(bsz, 1, tgt, src).to(f16); inverted = 1.0 -
// expanded; inverted.masked_fill(inverted.to(bool), finfo(f16).min)).
// MusicgenAttention.forward (no biases): q_proj(hidden) * scaling;
// k_proj/v_proj of the encoder states; _shape and view to (bsz * heads, -1,
// head_dim); bmm(q, k^T); view(bsz, heads, tgt, src) + attention_mask; view
// back; softmax(dim=-1) (f32 accumulation, f16 out); bmm with v; view,
// transpose(1, 2), reshape. Text of 6 tokens (i64 mask), decoder hidden 64
// in 4 heads of 16, 3 decoder positions, bsz 2 (conditional + null).
//
// Strongest form: a tensor mask, nothing more: the null half's mask is all
// zero, so every key of those rows is at finfo.min and the softmax there is
// a uniform average (of zero values): a -inf meaning would make those rows
// NaN, and the conditional half's padding may hide a whole row too. The
// (bsz * heads) flattening of the bmm is only a view: one poot.attention
// over [2, 4, 3, 16] x [2, 4, 6, 16] with the mask once per batch row,
// [2, 1, 3, 6] (not repeated per head), scale 0.25 (head_dim^-0.5 on q),
// n_rep 1.

// The bmm over the flattened bsz * heads axis is taken on the [bsz, heads]
// operands it was merged from, so the mask added in that view keeps its
// per-batch [2, 1, 3, 6] shape.
// CHECK-LABEL: func.func @hf_musicgen_cfg_cross_attention_null_half_zero_mask_bmm_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x3x6xf16>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x3x16xf16>, tensor<2x4x6x16xf16>, tensor<2x4x6x16xf16> -> tensor<2x4x3x16xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_musicgen_cfg_cross_attention_null_half_zero_mask_bmm_f16(
    %text_hidden: tensor<1x6x32xf16>,
    %text_mask: tensor<1x6xi64> {poot.range = array<i64: 0, 2>},
    %enc_to_dec_w: tensor<32x64xf16>, %enc_to_dec_b: tensor<64xf16>,
    %hidden: tensor<2x3x64xf16>,
    %wq_t: tensor<64x64xf16>, %wk_t: tensor<64x64xf16>, %wv_t: tensor<64x64xf16>)
    -> tensor<2x3x64xf16> {
  // classifier-free guidance: the null condition appended to the batch
  %zh = poot.constant dense<0.0> : tensor<1x6x32xf16>
  %lhs = poot.concat %text_hidden, %zh {axis = 0 : i64} : tensor<1x6x32xf16>, tensor<1x6x32xf16>
  %zm = poot.constant dense<0> : tensor<1x6xi64>
  %am = poot.concat %text_mask, %zm {axis = 0 : i64} : tensor<1x6xi64>, tensor<1x6xi64>
  // enc_to_dec_proj; encoder_hidden_states * attention_mask[..., None]
  %eh0 = poot.matmul %lhs, %enc_to_dec_w : tensor<2x6x32xf16>, tensor<32x64xf16>
  %eh1 = poot.add %eh0, %enc_to_dec_b : tensor<2x6x64xf16>, tensor<64xf16>
  %amf = poot.convert %am : tensor<2x6xi64> -> tensor<2x6xf16>
  %am3 = poot.reshape %amf : tensor<2x6xf16> -> tensor<2x6x1xf16>
  %ehs = poot.mul %eh1, %am3 : tensor<2x6x64xf16>, tensor<2x6x1xf16>
  // _prepare_4d_attention_mask -> _expand_mask
  %am4 = poot.reshape %am : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
  %amx = poot.broadcast %am4 {shape = array<i64: 2, 1, 3, 6>} : tensor<2x1x1x6xi64>
  %amh = poot.convert %amx : tensor<2x1x3x6xi64> -> tensor<2x1x3x6xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %inv = poot.sub %one, %amh : tensor<f16>, tensor<2x1x3x6xf16>
  %invb = poot.convert %inv : tensor<2x1x3x6xf16> -> tensor<2x1x3x6xi1>
  %fmin = poot.constant dense<-65504.0> : tensor<f16>
  %mask = poot.select %invb, %fmin, %inv : tensor<2x1x3x6xi1>, tensor<f16>, tensor<2x1x3x6xf16>
  // query_states = self.q_proj(hidden_states) * self.scaling; _shape(...).view(*proj_shape)
  %q0 = poot.matmul %hidden, %wq_t : tensor<2x3x64xf16>, tensor<64x64xf16>
  %scaling = poot.constant dense<0.25> : tensor<f16>
  %q1 = poot.mul %q0, %scaling : tensor<2x3x64xf16>, tensor<f16>
  %q4 = poot.reshape %q1 : tensor<2x3x64xf16> -> tensor<2x3x4x16xf16>
  %qt = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x16xf16>
  %q = poot.reshape %qt : tensor<2x4x3x16xf16> -> tensor<8x3x16xf16>
  // key_states = self._shape(self.k_proj(key_value_states), -1, bsz); reshape(*proj_shape)
  %k0 = poot.matmul %ehs, %wk_t : tensor<2x6x64xf16>, tensor<64x64xf16>
  %k4 = poot.reshape %k0 : tensor<2x6x64xf16> -> tensor<2x6x4x16xf16>
  %kt4 = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf16>
  %k = poot.reshape %kt4 : tensor<2x4x6x16xf16> -> tensor<8x6x16xf16>
  %v0 = poot.matmul %ehs, %wv_t : tensor<2x6x64xf16>, tensor<64x64xf16>
  %v4 = poot.reshape %v0 : tensor<2x6x64xf16> -> tensor<2x6x4x16xf16>
  %vt4 = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf16>
  %v = poot.reshape %vt4 : tensor<2x4x6x16xf16> -> tensor<8x6x16xf16>
  // attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<8x6x16xf16>
  %w0 = poot.matmul %q, %kt : tensor<8x3x16xf16>, tensor<8x16x6xf16>
  // view(bsz, heads, tgt, src) + attention_mask; view(bsz * heads, tgt, src)
  %w4 = poot.reshape %w0 : tensor<8x3x6xf16> -> tensor<2x4x3x6xf16>
  %wm = poot.add %w4, %mask : tensor<2x4x3x6xf16>, tensor<2x1x3x6xf16>
  %w = poot.reshape %wm : tensor<2x4x3x6xf16> -> tensor<8x3x6xf16>
  // nn.functional.softmax(attn_weights, dim=-1): f32 accumulation, f16 out
  %xf = poot.convert %w : tensor<8x3x6xf16> -> tensor<8x3x6xf32>
  %mx = poot.reduce_max %xf {axis = 2 : i64, keepdim} : tensor<8x3x6xf32>
  %d = poot.sub %xf, %mx : tensor<8x3x6xf32>, tensor<8x3x1xf32>
  %e = poot.exp %d : tensor<8x3x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x3x6xf32>
  %pf = poot.div %e, %z : tensor<8x3x6xf32>, tensor<8x3x1xf32>
  %p = poot.convert %pf : tensor<8x3x6xf32> -> tensor<8x3x6xf16>
  // attn_output = torch.bmm(attn_probs, value_states); view; transpose(1, 2); reshape
  %o = poot.matmul %p, %v : tensor<8x3x6xf16>, tensor<8x6x16xf16>
  %o4 = poot.reshape %o : tensor<8x3x16xf16> -> tensor<2x4x3x16xf16>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x16xf16>
  %out = poot.reshape %ot : tensor<2x3x4x16xf16> -> tensor<2x3x64xf16>
  return %out : tensor<2x3x64xf16>
}
