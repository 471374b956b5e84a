// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// pytorch/pytorch (2.5), torch/nn/functional.py,
// multi_head_attention_forward as nn.MultiheadAttention(batch_first=False)
// calls it (batch_first False rules out the fast path), self-attention,
// need_weights=False, eval (dropout_p 0), f32, inputs [L, B, E]; the
// packed in-projection is left outside (q, k, v are its outputs).
// attn_mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
// (True = not allowed) and key_padding_mask a bool [B, S] input (True =
// pad), is_causal False. _canonical_mask turns each bool mask into
// zeros_like(mask, f32).masked_fill_(mask, -inf); attn_mask.unsqueeze(0)
// [1, L, S]; q.view(L, B * H, D).transpose(0, 1), k and v likewise;
// merge: key_padding_mask.view(B, 1, 1, S).expand(-1, H, -1, -1)
// .reshape(B * H, 1, S), attn_mask = attn_mask + key_padding_mask;
// attn_mask.view(B, H, -1, S) (its size(0) is B * H, not 1); q, k, v
// .view(B, H, L, D); scaled_dot_product_attention, here its math path
// (aten _scaled_dot_product_attention_math): scaling_factor =
// sqrt(1 / sqrt(D)) on q and on k^T, matmul, attn.add_(attn_mask),
// at::_safe_softmax (softmax, then where(all(attn == -inf, -1), 0, p)),
// matmul with v; attn_output.permute(2, 0, 1, 3).contiguous().view(B * L,
// E) (out_proj is left outside). L = S = 6, B = 2, H = 4, D = 16.
//
// Strongest form: both masks are -inf fills, so they split: t > i is the
// causal band, the padding stays a tensor mask per batch row ([B, 1, L, S]
// as the fused op takes it, not one per head);
// _safe_softmax zeroes exactly the rows with no visible key, which the
// padding input can leave (a row whose keys 0..i are all padding):
// zero_empty_rows; scale 0.5 * 0.5 = 1/4, n_rep 1.

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @torch_mha_forward_seq_first_bool_causal_plus_key_padding_merged_sdpa_math_safe_softmax_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x6x6xf32>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them{{$}}
func.func @torch_mha_forward_seq_first_bool_causal_plus_key_padding_merged_sdpa_math_safe_softmax_f32(
    %q_in: tensor<6x2x64xf32>, %k_in: tensor<6x2x64xf32>, %v_in: tensor<6x2x64xf32>,
    %key_padding_mask: tensor<2x6xi1> {poot.name = "key_padding_mask"}) -> tensor<12x64xf32> {
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  // attn_mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
  %row = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %col = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %cmr = poot.sub %col, %row : tensor<6x6xi32>, tensor<6x6xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %attn_mask_b = poot.compare ge, %cmr, %one : tensor<6x6xi32>, tensor<i32>
  // key_padding_mask = _canonical_mask(...): zeros_like(mask, dtype=f32).masked_fill_(mask, float("-inf"))
  %kpm = poot.select %key_padding_mask, %ninf, %zero : tensor<2x6xi1>, tensor<f32>, tensor<f32>
  // attn_mask = _canonical_mask(...); attn_mask.unsqueeze(0)
  %am2 = poot.select %attn_mask_b, %ninf, %zero : tensor<6x6xi1>, tensor<f32>, tensor<f32>
  %am3 = poot.reshape %am2 : tensor<6x6xf32> -> tensor<1x6x6xf32>
  // q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1); k, v likewise
  %q0 = poot.reshape %q_in : tensor<6x2x64xf32> -> tensor<6x8x16xf32>
  %q1 = poot.transpose %q0 {perm = array<i64: 1, 0, 2>} : tensor<6x8x16xf32>
  %k0 = poot.reshape %k_in : tensor<6x2x64xf32> -> tensor<6x8x16xf32>
  %k1 = poot.transpose %k0 {perm = array<i64: 1, 0, 2>} : tensor<6x8x16xf32>
  %v0 = poot.reshape %v_in : tensor<6x2x64xf32> -> tensor<6x8x16xf32>
  %v1 = poot.transpose %v0 {perm = array<i64: 1, 0, 2>} : tensor<6x8x16xf32>
  // key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
  %kpm4 = poot.reshape %kpm : tensor<2x6xf32> -> tensor<2x1x1x6xf32>
  %kpmx = poot.broadcast %kpm4 {shape = array<i64: 2, 4, 1, 6>} : tensor<2x1x1x6xf32>
  %kpm3 = poot.reshape %kpmx : tensor<2x4x1x6xf32> -> tensor<8x1x6xf32>
  // attn_mask = attn_mask + key_padding_mask
  %merged = poot.add %am3, %kpm3 : tensor<1x6x6xf32>, tensor<8x1x6xf32>
  // attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
  %mask = poot.reshape %merged : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  // q = q.view(bsz, num_heads, tgt_len, head_dim); k, v likewise
  %q = poot.reshape %q1 : tensor<8x6x16xf32> -> tensor<2x4x6x16xf32>
  %k = poot.reshape %k1 : tensor<8x6x16xf32> -> tensor<2x4x6x16xf32>
  %v = poot.reshape %v1 : tensor<8x6x16xf32> -> tensor<2x4x6x16xf32>
  // SDPA math: scaling_factor = sqrt(1 / sqrt(D)); query = query_ * scaling_factor
  %sf = poot.constant dense<5.000000e-01> : tensor<f32>
  %qs = poot.mul %q, %sf : tensor<2x4x6x16xf32>, tensor<f32>
  // attn = at::matmul(query, key.transpose(-2, -1) * scaling_factor)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x16xf32>
  %kts = poot.mul %kt, %sf : tensor<2x4x16x6xf32>, tensor<f32>
  %attn = poot.matmul %qs, %kts : tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>
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
  %onef = poot.constant dense<1.0> : tensor<f32>
  %masked_rows = poot.compare eq, %allf, %onef : tensor<2x4x6x1xf32>, tensor<f32>
  %ps = poot.select %masked_rows, %zero, %p : tensor<2x4x6x1xi1>, tensor<f32>, tensor<2x4x6x6xf32>
  // at::matmul(attn, value)
  %o = poot.matmul %ps, %v : tensor<2x4x6x6xf32>, tensor<2x4x6x16xf32>
  // attn_output.permute(2, 0, 1, 3).contiguous().view(bsz * tgt_len, embed_dim)
  %op = poot.transpose %o {perm = array<i64: 2, 0, 1, 3>} : tensor<2x4x6x16xf32>
  %out = poot.reshape %op : tensor<6x2x4x16xf32> -> tensor<12x64xf32>
  return %out : tensor<12x64xf32>
}
