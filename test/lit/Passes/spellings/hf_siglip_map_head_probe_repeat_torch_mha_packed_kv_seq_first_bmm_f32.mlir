// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Hugging Face transformers SigLIP vision tower, the attention-pooling head
// (models/siglip/modeling_siglip.py, SiglipMultiheadAttentionPoolingHead
// .forward), f32: probe = self.probe.repeat(batch_size, 1, 1) (one learned
// [1, 1, C] query copied to every batch row); self.attention(probe,
// hidden_state, hidden_state)[0] with self.attention a torch
// nn.MultiheadAttention(C, heads, batch_first=True). That module takes the
// slow path (query is not key, so no fast path) into
// F.multi_head_attention_forward with need_weights=True (its default):
// batch_first: query and key transposed to sequence-first [L, B, C] (value
// kept the same object as key); _in_projection_packed with k is v and q not
// k (the encoder-decoder branch): w_q, w_kv = in_proj_weight.split([C, 2C])
// (biases likewise), q = linear(q, w_q, b_q), kv = linear(k, w_kv, b_kv),
// kv.unflatten(-1, (2, C)).unsqueeze(0).transpose(0, -2).squeeze(-2), k =
// kv[0], v = kv[1]; q.view(tgt, B * heads, hd).transpose(0, 1), k and v
// alike: heads flattened into the batch, [B * heads, L, hd];
// q_scaled = q * sqrt(1 / hd); bmm(q_scaled, k.transpose(-2, -1));
// softmax(dim=-1); bmm(weights, v); transpose(0, 1).view(tgt * B, C);
// out_proj linear; view(tgt, B, C); transposed back to batch-first. The
// head-averaged weights (view(B, heads, tgt, src).mean(dim=1)) are returned
// as [1] of the tuple, which the head drops, so they are dead and not in
// the graph. B = 2, 9 patch tokens, C = 64, 4 heads of 16, one probe query.
//
// Strongest form: plain attention of the one probe row over each image's
// tokens: no mask, n_rep 1 (every (b, h) has its own keys), scale
// sqrt(1/16) = 0.25 taken from q.

// CHECK-LABEL: func.func @hf_siglip_map_head_probe_repeat_torch_mha_packed_kv_seq_first_bmm_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @hf_siglip_map_head_probe_repeat_torch_mha_packed_kv_seq_first_bmm_f32(
    %hidden_state: tensor<2x9x64xf32>, %probe_param: tensor<1x1x64xf32>,
    %in_proj_weight: tensor<192x64xf32>, %in_proj_bias: tensor<192xf32>,
    %out_proj_weight: tensor<64x64xf32>, %out_proj_bias: tensor<64xf32>) -> tensor<2x1x64xf32> {
  // probe = self.probe.repeat(batch_size, 1, 1)
  %probe = poot.broadcast %probe_param {shape = array<i64: 2, 1, 64>} : tensor<1x1x64xf32>
  // batch_first: query, key = (x.transpose(1, 0) for x in (query, key)); value = key
  %query = poot.transpose %probe {perm = array<i64: 1, 0, 2>} : tensor<2x1x64xf32>
  %key = poot.transpose %hidden_state {perm = array<i64: 1, 0, 2>} : tensor<2x9x64xf32>
  // _in_projection_packed, k is v: w_q, w_kv = w.split([E, E * 2]); b_q, b_kv = b.split(...)
  %w_q = poot.slice %in_proj_weight {start = array<i64: 0, 0>, limit = array<i64: 64, 64>, step = array<i64: 1, 1>} : tensor<192x64xf32>
  %w_kv = poot.slice %in_proj_weight {start = array<i64: 64, 0>, limit = array<i64: 192, 64>, step = array<i64: 1, 1>} : tensor<192x64xf32>
  %b_q = poot.slice %in_proj_bias {start = array<i64: 0>, limit = array<i64: 64>, step = array<i64: 1>} : tensor<192xf32>
  %b_kv = poot.slice %in_proj_bias {start = array<i64: 64>, limit = array<i64: 192>, step = array<i64: 1>} : tensor<192xf32>
  // q_proj = linear(q, w_q, b_q)
  %w_qt = poot.transpose %w_q {perm = array<i64: 1, 0>} : tensor<64x64xf32>
  %q0 = poot.matmul %query, %w_qt : tensor<1x2x64xf32>, tensor<64x64xf32>
  %q_proj = poot.add %q0, %b_q : tensor<1x2x64xf32>, tensor<64xf32>
  // kv_proj = linear(k, w_kv, b_kv)
  %w_kvt = poot.transpose %w_kv {perm = array<i64: 1, 0>} : tensor<128x64xf32>
  %kv0 = poot.matmul %key, %w_kvt : tensor<9x2x64xf32>, tensor<64x128xf32>
  %kv_proj = poot.add %kv0, %b_kv : tensor<9x2x128xf32>, tensor<128xf32>
  // kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
  %kv4 = poot.reshape %kv_proj : tensor<9x2x128xf32> -> tensor<9x2x2x64xf32>
  %kv5 = poot.reshape %kv4 : tensor<9x2x2x64xf32> -> tensor<1x9x2x2x64xf32>
  %kvt = poot.transpose %kv5 {perm = array<i64: 3, 1, 2, 0, 4>} : tensor<1x9x2x2x64xf32>
  %kvs = poot.reshape %kvt : tensor<2x9x2x1x64xf32> -> tensor<2x9x2x64xf32>
  // kv_proj[0], kv_proj[1]
  %k0 = poot.slice %kvs {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 9, 2, 64>, step = array<i64: 1, 1, 1, 1>} : tensor<2x9x2x64xf32>
  %k = poot.reshape %k0 : tensor<1x9x2x64xf32> -> tensor<9x2x64xf32>
  %v0 = poot.slice %kvs {start = array<i64: 1, 0, 0, 0>, limit = array<i64: 2, 9, 2, 64>, step = array<i64: 1, 1, 1, 1>} : tensor<2x9x2x64xf32>
  %v = poot.reshape %v0 : tensor<1x9x2x64xf32> -> tensor<9x2x64xf32>
  // q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1), k and v alike
  %qv = poot.reshape %q_proj : tensor<1x2x64xf32> -> tensor<1x8x16xf32>
  %qb = poot.transpose %qv {perm = array<i64: 1, 0, 2>} : tensor<1x8x16xf32>
  %kv = poot.reshape %k : tensor<9x2x64xf32> -> tensor<9x8x16xf32>
  %kb = poot.transpose %kv {perm = array<i64: 1, 0, 2>} : tensor<9x8x16xf32>
  %vv = poot.reshape %v : tensor<9x2x64xf32> -> tensor<9x8x16xf32>
  %vb = poot.transpose %vv {perm = array<i64: 1, 0, 2>} : tensor<9x8x16xf32>
  // need_weights: q_scaled = q * math.sqrt(1.0 / float(E))
  %sc = poot.constant dense<0.25> : tensor<f32>
  %q_scaled = poot.mul %qb, %sc : tensor<8x1x16xf32>, tensor<f32>
  // attn_output_weights = torch.bmm(q_scaled, k.transpose(-2, -1))
  %kt = poot.transpose %kb {perm = array<i64: 0, 2, 1>} : tensor<8x9x16xf32>
  %w = poot.matmul %q_scaled, %kt : tensor<8x1x16xf32>, tensor<8x16x9xf32>
  // softmax(attn_output_weights, dim=-1)
  %m = poot.reduce_max %w {axis = 2 : i64, keepdim} : tensor<8x1x9xf32>
  %d = poot.sub %w, %m : tensor<8x1x9xf32>, tensor<8x1x1xf32>
  %e = poot.exp %d : tensor<8x1x9xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x1x9xf32>
  %p = poot.div %e, %z : tensor<8x1x9xf32>, tensor<8x1x1xf32>
  // attn_output = torch.bmm(attn_output_weights, v)
  %o = poot.matmul %p, %vb : tensor<8x1x9xf32>, tensor<8x9x16xf32>
  // attn_output.transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
  %ot = poot.transpose %o {perm = array<i64: 1, 0, 2>} : tensor<8x1x16xf32>
  %o2 = poot.reshape %ot : tensor<1x8x16xf32> -> tensor<2x64xf32>
  // linear(attn_output, out_proj_weight, out_proj_bias).view(tgt_len, bsz, -1)
  %w_ot = poot.transpose %out_proj_weight {perm = array<i64: 1, 0>} : tensor<64x64xf32>
  %y0 = poot.matmul %o2, %w_ot : tensor<2x64xf32>, tensor<64x64xf32>
  %y1 = poot.add %y0, %out_proj_bias : tensor<2x64xf32>, tensor<64xf32>
  %y2 = poot.reshape %y1 : tensor<2x64xf32> -> tensor<1x2x64xf32>
  // batch_first: attn_output.transpose(1, 0)
  %y = poot.transpose %y2 {perm = array<i64: 1, 0, 2>} : tensor<1x2x64xf32>
  return %y : tensor<2x1x64xf32>
}
