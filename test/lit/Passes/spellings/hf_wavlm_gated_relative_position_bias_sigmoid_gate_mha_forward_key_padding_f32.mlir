// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.46.0, src/transformers/models/wavlm/
// modeling_wavlm.py, WavLMAttention.forward and
// .torch_multi_head_self_attention (the first layer's position_bias =
// compute_bias(T, T), [H, T, T], here the input [1, H, T, T], then
// .unsqueeze(0).repeat(bsz, 1, 1, 1).view(bsz * H, T, T)), f32, eval,
// with the encoder's attention_mask [B, T] of 0/1. The gate comes from the
// layer input: hidden_states.view(B, T, H, -1).permute(0, 2, 1, 3) ->
// gru_rel_pos_linear (Linear(D, 8), its output [B, H, T, 8] is the input);
// .view(B, H, T, 2, 4).sum(-1); gate_a, gate_b =
// torch.sigmoid(...).chunk(2, dim=-1) (sigmoid spelled 1 / (1 + exp(-x)));
// gate_output = gate_a * (gate_b * self.gru_rel_pos_const - 1.0) + 2.0
// (gru_rel_pos_const a [1, H, 1, 1] parameter, input);
// gated_position_bias = gate_output.view(bsz * H, -1, 1) * position_bias,
// .view(-1, T, T). Then F.multi_head_attention_forward(query = key = value
// = hidden_states.transpose(0, 1), ..., key_padding_mask =
// attention_mask.ne(1), need_weights=False, attn_mask =
// gated_position_bias, use_separate_proj_weight=True) (torch 2.5,
// torch/nn/functional.py; the in-projections left outside, their [T, B,
// E] outputs are the inputs): key_padding_mask -> zeros.masked_fill_(kpm,
// -inf); q.view(T, B * H, D).transpose(0, 1), k and v likewise;
// key_padding_mask.view(B, 1, 1, S).expand(-1, H, -1, -1).reshape(B * H,
// 1, S); attn_mask = attn_mask + key_padding_mask; attn_mask.view(B, H,
// -1, S); q, k, v .view(B, H, T, D); scaled_dot_product_attention, its
// math path: sqrt(1 / sqrt(D)) on q and on k^T, matmul, add the mask,
// at::_safe_softmax, matmul with v; permute(2, 0, 1, 3).contiguous()
// .view(B * T, E). B = 2, T = 6, H = 4, D = 8, E = 32.
//
// Strongest form: the gated bias is a per (batch, head, query) gate times
// a per-head table, a tensor added to the -inf padding term: one tensor
// mask [B, H, T, T] (the fused op has one mask operand, and the padding is
// no prefix for len); a batch row whose attention_mask is all 0 leaves
// rows of only -inf, which _safe_softmax makes 0: zero_empty_rows;
// n_rep 1, scale ~ 1/sqrt(8) (0.5946036^2 in f32):
//   poot.attention q, k, v mask(... : tensor<2x4x6x6xf32>) {n_rep = 1 : i64, scale = 0.35355... : f64, zero_empty_rows}
// Reached (checked against the oracle); the gate's sum and its sigmoid's
// exp stay in the graph (they build the mask), so before the fused op only
// the softmax's reduce_max is ruled out:
// CHECK-LABEL: func.func @hf_wavlm_gated_relative_position_bias_sigmoid_gate_mha_forward_key_padding_f32
// CHECK-NOT: poot.{{reduce_max|reduce_min}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x4x6x6xf32>) {n_rep = 1 : i64, scale = 0.353553{{[0-9]*}} : f64, zero_empty_rows} : tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32> -> tensor<2x4x6x8xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_min|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.353553, tensor mask; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them{{$}}
func.func @hf_wavlm_gated_relative_position_bias_sigmoid_gate_mha_forward_key_padding_f32(
    %q_in: tensor<6x2x32xf32>, %k_in: tensor<6x2x32xf32>, %v_in: tensor<6x2x32xf32>,
    %relative_position_proj: tensor<2x4x6x8xf32>, %gru_rel_pos_const: tensor<1x4x1x1xf32>,
    %position_bias_in: tensor<1x4x6x6xf32>,
    %attention_mask: tensor<2x6xi64> {poot.name = "attention_mask", poot.range = array<i64: 0, 2>})
    -> tensor<12x32xf32> {
  // position_bias.unsqueeze(0).repeat(bsz, 1, 1, 1).view(bsz * self.num_heads, tgt_len, tgt_len)
  %pbr = poot.broadcast %position_bias_in {shape = array<i64: 2, 4, 6, 6>} : tensor<1x4x6x6xf32>
  %position_bias = poot.reshape %pbr : tensor<2x4x6x6xf32> -> tensor<8x6x6xf32>
  // relative_position_proj.view(gated_hidden_states.shape[:-1] + (2, 4)).sum(-1)
  %rp5 = poot.reshape %relative_position_proj : tensor<2x4x6x8xf32> -> tensor<2x4x6x2x4xf32>
  %rps = poot.reduce_sum %rp5 {axis = 4 : i64} : tensor<2x4x6x2x4xf32>
  // torch.sigmoid(relative_position_proj)
  %nrp = poot.neg %rps : tensor<2x4x6x2xf32>
  %enrp = poot.exp %nrp : tensor<2x4x6x2xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %den = poot.add %enrp, %onef : tensor<2x4x6x2xf32>, tensor<f32>
  %sig = poot.div %onef, %den : tensor<f32>, tensor<2x4x6x2xf32>
  // gate_a, gate_b = ....chunk(2, dim=-1)
  %gate_a = poot.slice %sig {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 6, 1>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x6x2xf32>
  %gate_b = poot.slice %sig {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 2, 4, 6, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x6x2xf32>
  // gate_output = gate_a * (gate_b * self.gru_rel_pos_const - 1.0) + 2.0
  %gbc = poot.mul %gate_b, %gru_rel_pos_const : tensor<2x4x6x1xf32>, tensor<1x4x1x1xf32>
  %gbm = poot.sub %gbc, %onef : tensor<2x4x6x1xf32>, tensor<f32>
  %ga = poot.mul %gate_a, %gbm : tensor<2x4x6x1xf32>, tensor<2x4x6x1xf32>
  %two = poot.constant dense<2.0> : tensor<f32>
  %gate_output = poot.add %ga, %two : tensor<2x4x6x1xf32>, tensor<f32>
  // gated_position_bias = gate_output.view(bsz * self.num_heads, -1, 1) * position_bias
  %gov = poot.reshape %gate_output : tensor<2x4x6x1xf32> -> tensor<8x6x1xf32>
  %gated = poot.mul %gov, %position_bias : tensor<8x6x1xf32>, tensor<8x6x6xf32>
  // key_padding_mask = attention_mask.ne(1)
  %one_i = poot.constant dense<1> : tensor<i64>
  %key_padding_mask = poot.compare ne, %attention_mask, %one_i : tensor<2x6xi64>, tensor<i64>
  // _canonical_mask: zeros_like(mask, dtype=f32).masked_fill_(mask, float("-inf"))
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %kpm = poot.select %key_padding_mask, %ninf, %zero : tensor<2x6xi1>, tensor<f32>, tensor<f32>
  // q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1); k, v likewise
  %q0 = poot.reshape %q_in : tensor<6x2x32xf32> -> tensor<6x8x8xf32>
  %q1 = poot.transpose %q0 {perm = array<i64: 1, 0, 2>} : tensor<6x8x8xf32>
  %k0 = poot.reshape %k_in : tensor<6x2x32xf32> -> tensor<6x8x8xf32>
  %k1 = poot.transpose %k0 {perm = array<i64: 1, 0, 2>} : tensor<6x8x8xf32>
  %v0 = poot.reshape %v_in : tensor<6x2x32xf32> -> tensor<6x8x8xf32>
  %v1 = poot.transpose %v0 {perm = array<i64: 1, 0, 2>} : tensor<6x8x8xf32>
  // key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
  %kpm4 = poot.reshape %kpm : tensor<2x6xf32> -> tensor<2x1x1x6xf32>
  %kpmx = poot.broadcast %kpm4 {shape = array<i64: 2, 4, 1, 6>} : tensor<2x1x1x6xf32>
  %kpm3 = poot.reshape %kpmx : tensor<2x4x1x6xf32> -> tensor<8x1x6xf32>
  // attn_mask = attn_mask + key_padding_mask
  %merged = poot.add %gated, %kpm3 : tensor<8x6x6xf32>, tensor<8x1x6xf32>
  // attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
  %mask = poot.reshape %merged : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  // q = q.view(bsz, num_heads, tgt_len, head_dim); k, v likewise
  %q = poot.reshape %q1 : tensor<8x6x8xf32> -> tensor<2x4x6x8xf32>
  %k = poot.reshape %k1 : tensor<8x6x8xf32> -> tensor<2x4x6x8xf32>
  %v = poot.reshape %v1 : tensor<8x6x8xf32> -> tensor<2x4x6x8xf32>
  // SDPA math: scaling_factor = sqrt(1 / sqrt(D)); query = query_ * scaling_factor
  %sf = poot.constant dense<0.594603539> : tensor<f32>
  %qs = poot.mul %q, %sf : tensor<2x4x6x8xf32>, tensor<f32>
  // attn = at::matmul(query, key.transpose(-2, -1) * scaling_factor)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x8xf32>
  %kts = poot.mul %kt, %sf : tensor<2x4x8x6xf32>, tensor<f32>
  %attn = poot.matmul %qs, %kts : tensor<2x4x6x8xf32>, tensor<2x4x8x6xf32>
  // attn.add_(*attn_mask)
  %am = poot.add %attn, %mask : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
  // at::_safe_softmax(attn, -1): out = at::softmax(self, dim)
  %mx = poot.reduce_max %am {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %d = poot.sub %am, %mx : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %e = poot.exp %d : tensor<2x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %p = poot.div %e, %z : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  // masked = self.eq(-inf); masked_rows = all(masked, dim, true); where(masked_rows, zero, out)
  %masked = poot.compare eq, %am, %ninf : tensor<2x4x6x6xf32>, tensor<f32>
  %maskedf = poot.convert %masked : tensor<2x4x6x6xi1> -> tensor<2x4x6x6xf32>
  %allf = poot.reduce_min %maskedf {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %masked_rows = poot.compare eq, %allf, %onef : tensor<2x4x6x1xf32>, tensor<f32>
  %ps = poot.select %masked_rows, %zero, %p : tensor<2x4x6x1xi1>, tensor<f32>, tensor<2x4x6x6xf32>
  // at::matmul(attn, value)
  %o = poot.matmul %ps, %v : tensor<2x4x6x6xf32>, tensor<2x4x6x8xf32>
  // attn_output.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
  %op = poot.transpose %o {perm = array<i64: 2, 0, 1, 3>} : tensor<2x4x6x8xf32>
  %out = poot.reshape %op : tensor<6x2x4x8xf32> -> tensor<12x32xf32>
  return %out : tensor<12x32xf32>
}
