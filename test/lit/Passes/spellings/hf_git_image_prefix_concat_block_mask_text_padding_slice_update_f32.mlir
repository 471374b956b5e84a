// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers GIT (models/git/modeling_git.py, GitModel.forward with
// create_attention_mask and _generate_future_mask, GitSelfAttention.forward)
// on a prefill of M = 4 image tokens followed by L = 4 text tokens, f32.
// The mask is assembled from blocks: top_left zeros (M, M), top_right
// full((M, L), -inf), bottom_left zeros (L, M) and the text future mask
// triu(ones(L, L), 1).masked_fill(== 1, -inf), concatenated
// cat((cat((tl, bl), 0), cat((tr, tgt), 0)), 1)[None]; an all-False
// memory_key_padding_mask adds zero_negative_infinity to the image columns
// through an in-place slice assignment full[:, :, :M] = full[:, :, :M] +
// zni[:, None, :] on the expanded clone; the text padding mask
// (_expand_mask: (1 - m) masked_fill finfo.min) is added in place to the
// text block, combined[:, :, -L:, -L:] += expanded. BERT-style attention:
// q @ k^T / sqrt(16) + mask, softmax(dim=-1), @ v. So image queries see
// the image keys only, text queries the image keys and their causal text
// prefix; every row keeps the image keys. B = 2, H = 2, D = 16.

// Strongest form: the image rows see keys past their own row, so the block
// mask is no band: one attention with the (constant plus padding) mask as
// a tensor, n_rep 1, scale 0.25.
// CHECK-LABEL: func.func @hf_git_image_prefix_concat_block_mask_text_padding_slice_update_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_git_image_prefix_concat_block_mask_text_padding_slice_update_f32(
    %hq: tensor<2x8x32xf32>,
    %hk: tensor<2x8x32xf32>,
    %hv: tensor<2x8x32xf32>,
    %attention_mask: tensor<2x4xi64>)
    -> tensor<2x8x32xf32> {
  // GitModel._generate_future_mask(L): triu(ones(L, L), diagonal=1) (traced to a constant),
  // masked_fill(mask == 1, float('-inf'))
  %triu1 = poot.constant dense<[[0.0, 1.0, 1.0, 1.0], [0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %eq1 = poot.compare eq, %triu1, %one : tensor<4x4xf32>, tensor<f32>
  %tgt_mask = poot.select %eq1, %ninf, %triu1 : tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>
  // create_attention_mask: top_left zeros (M, M), top_right full((M, L), -inf), bottom_left zeros (L, M)
  %top_left = poot.constant dense<0.0> : tensor<4x4xf32>
  %top_right = poot.constant dense<0xFF800000> : tensor<4x4xf32>
  %bottom_left = poot.constant dense<0.0> : tensor<4x4xf32>
  %left = poot.concat %top_left, %bottom_left {axis = 0 : i64} : tensor<4x4xf32>, tensor<4x4xf32>
  %right = poot.concat %top_right, %tgt_mask {axis = 0 : i64} : tensor<4x4xf32>, tensor<4x4xf32>
  %full2 = poot.concat %left, %right {axis = 1 : i64} : tensor<8x4xf32>, tensor<8x4xf32>
  %full = poot.reshape %full2 : tensor<8x8xf32> -> tensor<1x8x8xf32>
  // memory_key_padding_mask = full((B, M), False); zero_negative_infinity[mask] = -inf
  %mkpm = poot.constant dense<false> : tensor<2x4xi1>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %zni = poot.select %mkpm, %ninf, %zf : tensor<2x4xi1>, tensor<f32>, tensor<f32>
  // full_attention_mask.expand(B, N, N).clone(); [:, :, :M] = origin_left + zni[:, None, :]
  %fexp = poot.broadcast %full {shape = array<i64: 2, 8, 8>} : tensor<1x8x8xf32>
  %origin_left = poot.slice %fexp {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 8, 4>, step = array<i64: 1, 1, 1>} : tensor<2x8x8xf32>
  %upd = poot.reshape %zni : tensor<2x4xf32> -> tensor<2x1x4xf32>
  %newleft = poot.add %origin_left, %upd : tensor<2x8x4xf32>, tensor<2x1x4xf32>
  %s0 = poot.constant dense<0> : tensor<i64>
  %fam = poot.dynamic_update_slice %fexp[%s0, %s0, %s0], %newleft : tensor<2x8x8xf32>, tensor<2x8x4xf32>, tensor<i64>, tensor<i64>, tensor<i64>
  %fam4 = poot.reshape %fam : tensor<2x8x8xf32> -> tensor<2x1x8x8xf32>
  // _expand_mask(attention_mask, f32, tgt_len=L): mask[:, None, None, :].expand(B, 1, L, L).to(f32),
  // inverted = 1.0 - expanded; inverted.masked_fill(inverted.to(bool), finfo(f32).min)
  %am4 = poot.reshape %attention_mask : tensor<2x4xi64> -> tensor<2x1x1x4xi64>
  %amb = poot.broadcast %am4 {shape = array<i64: 2, 1, 4, 4>} : tensor<2x1x1x4xi64>
  %amf = poot.convert %amb : tensor<2x1x4x4xi64> -> tensor<2x1x4x4xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %onef, %amf : tensor<f32>, tensor<2x1x4x4xf32>
  %zf2 = poot.constant dense<0.0> : tensor<f32>
  %invb = poot.compare ne, %inv, %zf2 : tensor<2x1x4x4xf32>, tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %expanded = poot.select %invb, %fmin, %inv : tensor<2x1x4x4xi1>, tensor<f32>, tensor<2x1x4x4xf32>
  // combined_attention_mask[:, :, -L:, -L:] += expanded_attn_mask
  %textrows = poot.slice %fam4 {start = array<i64: 0, 0, 4, 0>, limit = array<i64: 2, 1, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x1x8x8xf32>
  %textblock = poot.slice %textrows {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 2, 1, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x1x4x8xf32>
  %tsum = poot.add %textblock, %expanded : tensor<2x1x4x4xf32>, tensor<2x1x4x4xf32>
  %sM = poot.constant dense<4> : tensor<i64>
  %mask = poot.dynamic_update_slice %fam4[%s0, %s0, %sM, %sM], %tsum : tensor<2x1x8x8xf32>, tensor<2x1x4x4xf32>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>
  // GitSelfAttention: transpose_for_scores = view(B, N, H, D).permute(0, 2, 1, 3)
  %r = poot.reshape %hq : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %q = poot.transpose %r {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %r1 = poot.reshape %hk : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %k = poot.transpose %r1 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %r2 = poot.reshape %hv : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %v = poot.transpose %r2 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x8x16xf32>, tensor<2x2x16x8xf32>
  // attention_scores / math.sqrt(attention_head_size) + attention_mask; softmax(dim=-1)
  %sqrtd = poot.constant dense<4.0> : tensor<f32>
  %ss = poot.div %s, %sqrtd : tensor<2x2x8x8xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<2x2x8x8xf32>, tensor<2x1x8x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %e = poot.exp %d : tensor<2x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %p = poot.div %e, %z : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %ctx = poot.matmul %p, %v : tensor<2x2x8x8xf32>, tensor<2x2x8x16xf32>
  %ctxt = poot.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x8x16xf32>
  %out = poot.reshape %ctxt : tensor<2x8x2x16xf32> -> tensor<2x8x32xf32>
  return %out : tensor<2x8x32xf32>
}
