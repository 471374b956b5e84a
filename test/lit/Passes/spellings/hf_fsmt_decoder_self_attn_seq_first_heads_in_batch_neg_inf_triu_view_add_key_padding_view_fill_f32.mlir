// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers FSMT (models/fsmt/modeling_fsmt.py, Attention.forward as
// the decoder self-attention, with _prepare_fsmt_decoder_inputs), a
// 5-token prefill with a padded target, f32. Sequence-first [T, B, C]: q =
// q_proj(query) * scaling, each of q, k, v shaped by
// view(T, B * H, D).transpose(0, 1); attn_weights = bmm(q, k^T)
// [B * H, T, T], viewed [B, H, T, T] to add the causal mask
// triu(fill_with_neg_inf(zeros(T, T)), 1) and viewed back, then viewed
// again for masked_fill(key_padding_mask[:, None, None, :], -inf) (the mask
// is decoder_input_ids.eq(pad_token_id)) and viewed back; F.softmax(dim=-1)
// in the merged batch; bmm with v; transpose(0, 1).view(T, B, C). Two view
// round trips between the product and the softmax. B = 2, H = 2, D = 8.

// Strongest form: one attention over [B, H, T, D], causal from the -inf
// table, the padding kept as a tensor mask [B, 1, 1|T, T] beside it (both
// fills are -inf, so the parts split), n_rep 1, scale 8 ** -0.5.
// CHECK-LABEL: func.func @hf_fsmt_decoder_self_attn_seq_first_heads_in_batch_neg_inf_triu_view_add_key_padding_view_fill_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x{{[15]}}x5xf32>) {causal, n_rep = 1 : i64, scale = 0.35355{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.35355{{[0-9]*}}, tensor mask, causal{{$}}
func.func @hf_fsmt_decoder_self_attn_seq_first_heads_in_batch_neg_inf_triu_view_add_key_padding_view_fill_f32(
    %q_proj_out: tensor<5x2x16xf32>,
    %k_proj_out: tensor<5x2x16xf32>,
    %v_proj_out: tensor<5x2x16xf32>,
    %decoder_input_ids: tensor<2x5xi64> {poot.range = array<i64: 0, 6>})
    -> tensor<5x2x16xf32> {
  // make_padding_mask: decoder_input_ids.eq(pad_token_id = 1)
  %pad_id = poot.constant dense<1> : tensor<i64>
  %key_padding_mask = poot.compare eq, %decoder_input_ids, %pad_id : tensor<2x5xi64>, tensor<i64>
  // _prepare_fsmt_decoder_inputs: causal_mask = triu(fill_with_neg_inf(zeros(T, T)), 1) (a constant)
  %causal_mask = poot.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0xFF800000, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<5x5xf32>
  // Attention.forward: q = self.q_proj(query) * self.scaling
  %scaling = poot.constant dense<0.353553385> : tensor<f32>
  %qs = poot.mul %q_proj_out, %scaling : tensor<5x2x16xf32>, tensor<f32>
  // _shape: tensor.contiguous().view(seq_len, bsz * num_heads, head_dim).transpose(0, 1)
  %qv = poot.reshape %qs : tensor<5x2x16xf32> -> tensor<5x4x8xf32>
  %q = poot.transpose %qv {perm = array<i64: 1, 0, 2>} : tensor<5x4x8xf32>
  %kv = poot.reshape %k_proj_out : tensor<5x2x16xf32> -> tensor<5x4x8xf32>
  %k = poot.transpose %kv {perm = array<i64: 1, 0, 2>} : tensor<5x4x8xf32>
  %vv = poot.reshape %v_proj_out : tensor<5x2x16xf32> -> tensor<5x4x8xf32>
  %v = poot.transpose %vv {perm = array<i64: 1, 0, 2>} : tensor<5x4x8xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x5x8xf32>
  %attn_weights = poot.matmul %q, %kt : tensor<4x5x8xf32>, tensor<4x8x5xf32>
  // attn_weights.view(bsz, num_heads, tgt_len, src_len) + attn_mask, view back
  %w4 = poot.reshape %attn_weights : tensor<4x5x5xf32> -> tensor<2x2x5x5xf32>
  %wa = poot.add %w4, %causal_mask : tensor<2x2x5x5xf32>, tensor<5x5xf32>
  %w3 = poot.reshape %wa : tensor<2x2x5x5xf32> -> tensor<4x5x5xf32>
  // key_padding_mask: view(bsz, num_heads, ..), masked_fill(key_padding_mask.unsqueeze(1).unsqueeze(2), -inf), view back
  %w4b = poot.reshape %w3 : tensor<4x5x5xf32> -> tensor<2x2x5x5xf32>
  %reshaped = poot.reshape %key_padding_mask : tensor<2x5xi1> -> tensor<2x1x1x5xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %wf = poot.select %reshaped, %ninf, %w4b : tensor<2x1x1x5xi1>, tensor<f32>, tensor<2x2x5x5xf32>
  %w3b = poot.reshape %wf : tensor<2x2x5x5xf32> -> tensor<4x5x5xf32>
  // F.softmax(attn_weights, dim=-1)
  %m = poot.reduce_max %w3b {axis = 2 : i64, keepdim} : tensor<4x5x5xf32>
  %d = poot.sub %w3b, %m : tensor<4x5x5xf32>, tensor<4x5x1xf32>
  %e = poot.exp %d : tensor<4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x5x5xf32>
  %p = poot.div %e, %z : tensor<4x5x5xf32>, tensor<4x5x1xf32>
  %attn_output = poot.matmul %p, %v : tensor<4x5x5xf32>, tensor<4x5x8xf32>
  // attn_output.transpose(0, 1).contiguous().view(tgt_len, bsz, embed_dim)
  %ot = poot.transpose %attn_output {perm = array<i64: 1, 0, 2>} : tensor<4x5x8xf32>
  %out = poot.reshape %ot : tensor<5x4x8xf32> -> tensor<5x2x16xf32>
  return %out : tensor<5x2x16xf32>
}
