// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Hugging Face transformers, Pix2Struct vision encoder
// (models/pix2struct/modeling_pix2struct.py), bf16. Pix2StructVisionModel
// .forward, called without an attention_mask, makes one from the patches:
// attention_mask = (flattened_patches.sum(dim=-1) != 0).float() (padding
// patches are all zero, row and column ids included). Pix2StructVisionAttention
// .forward (T5 style, no scaling of the scores): query/key/value Linear
// (no bias) on the pre-attention-normed states, to_projection_shape (view(B,
// -1, H, d_kv).transpose(1, 2)); scores = matmul(q, k.transpose(3, 2));
// position_bias = zeros((1, H, L, L), bf16) + attention_mask[:, None, None,
// :] (promoted to f32); position_bias = 1 - position_bias;
// position_bias_masked = position_bias.masked_fill(position_bias == 1,
// finfo(bf16).min); scores += position_bias_masked (in place: f32 add,
// stored in bf16); scores = torch.max(scores, torch.tensor(finfo(bf16).min))
// (a 0-d f32 tensor: the max stays bf16); softmax(scores, dim=-1,
// dtype=float32).type_as(scores); @ v; transpose(1, 2) and view(B, -1,
// inner). B = 2, 8 patches of 12 values (+ row and column ids), hidden 32,
// 2 heads, d_kv 16.
//
// Strongest form: the mask values are 0/1, so 1 - m is 0 on a kept patch
// and 1 on a padding patch, where it becomes finfo.min: the bias is exactly
// select(keep, 0, finfo.min), a tensor mask (a padding-only image may hide
// every key of a row, so no -inf meaning). The clamp at finfo(bf16).min
// moves nothing: every score is s or s + finfo.min, which rounds back to
// finfo.min. Scale 1 (T5 folds the scale into the weights). So: one
// poot.attention with a tensor mask, scale 1, n_rep 1, no clamp left.

// 1 - m is a select of constants of the patch condition (0 where a patch
// is kept, 1 where it is padding), so masked_fill(1 - m == 1, min) keeps 0
// wherever it keeps 1 - m: the bias is a select of finfo.min and 0, and the
// clamp at finfo.min moves nothing the fused op would not.
// CHECK-LABEL: func.func @hf_pix2struct_vision_one_minus_mask_eq1_fill_clamp_unscaled_bf16
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x2x8x8xbf16>) {n_rep = 1 : i64, scale = 1.000000e+00 : f64} : tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16>, tensor<2x2x8x16xbf16> -> tensor<2x2x8x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask{{$}}
func.func @hf_pix2struct_vision_one_minus_mask_eq1_fill_clamp_unscaled_bf16(
    %hidden: tensor<2x8x32xbf16>, %flattened_patches: tensor<2x8x14xbf16>,
    %wq_t: tensor<32x32xbf16>, %wk_t: tensor<32x32xbf16>, %wv_t: tensor<32x32xbf16>)
    -> tensor<2x8x32xbf16> {
  // Pix2StructVisionModel.forward: attention_mask = (flattened_patches.sum(dim=-1) != 0).float()
  %psum = poot.reduce_sum %flattened_patches {axis = 2 : i64} : tensor<2x8x14xbf16>
  %bz = poot.constant dense<0.0> : tensor<bf16>
  %keep = poot.compare ne, %psum, %bz : tensor<2x8xbf16>, tensor<bf16>
  %am = poot.convert %keep : tensor<2x8xi1> -> tensor<2x8xf32>
  // query / key / value projections and to_projection_shape
  %q0 = poot.matmul %hidden, %wq_t : tensor<2x8x32xbf16>, tensor<32x32xbf16>
  %q4 = poot.reshape %q0 : tensor<2x8x32xbf16> -> tensor<2x8x2x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xbf16>
  %k0 = poot.matmul %hidden, %wk_t : tensor<2x8x32xbf16>, tensor<32x32xbf16>
  %k4 = poot.reshape %k0 : tensor<2x8x32xbf16> -> tensor<2x8x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xbf16>
  %v0 = poot.matmul %hidden, %wv_t : tensor<2x8x32xbf16>, tensor<32x32xbf16>
  %v4 = poot.reshape %v0 : tensor<2x8x32xbf16> -> tensor<2x8x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xbf16>
  // scores = torch.matmul(query_states, key_states.transpose(3, 2))
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xbf16>
  %scores = poot.matmul %q, %kt : tensor<2x2x8x16xbf16>, tensor<2x2x16x8xbf16>
  // position_bias = zeros((1, H, L, L), bf16) + attention_mask[:, None, None, :]; 1 - position_bias
  %zeros = poot.constant dense<0.0> : tensor<1x2x8x8xbf16>
  %zf = poot.convert %zeros : tensor<1x2x8x8xbf16> -> tensor<1x2x8x8xf32>
  %am4 = poot.reshape %am : tensor<2x8xf32> -> tensor<2x1x1x8xf32>
  %pb0 = poot.add %zf, %am4 : tensor<1x2x8x8xf32>, tensor<2x1x1x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %pb = poot.sub %one, %pb0 : tensor<f32>, tensor<2x2x8x8xf32>
  // position_bias.masked_fill(position_bias == 1, finfo(bf16).min)
  %is1 = poot.compare eq, %pb, %one : tensor<2x2x8x8xf32>, tensor<f32>
  %fmin = poot.constant dense<-3.38953139E+38> : tensor<f32>
  %pbm = poot.select %is1, %fmin, %pb : tensor<2x2x8x8xi1>, tensor<f32>, tensor<2x2x8x8xf32>
  // scores += position_bias_masked (f32 add, stored back in bf16)
  %sf = poot.convert %scores : tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xf32>
  %sa = poot.add %sf, %pbm : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>
  %sb = poot.convert %sa : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xbf16>
  // scores = torch.max(scores, torch.tensor(finfo(bf16).min))
  %bmin = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %sc = poot.max %sb, %bmin : tensor<2x2x8x8xbf16>, tensor<bf16>
  // softmax(scores, dim=-1, dtype=torch.float32).type_as(scores)
  %x = poot.convert %sc : tensor<2x2x8x8xbf16> -> tensor<2x2x8x8xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %d = poot.sub %x, %mx : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %e = poot.exp %d : tensor<2x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x8x8xf32>
  %pf = poot.div %e, %z : tensor<2x2x8x8xf32>, tensor<2x2x8x1xf32>
  %p = poot.convert %pf : tensor<2x2x8x8xf32> -> tensor<2x2x8x8xbf16>
  // attn_output = torch.matmul(attn_weights, value_states); transpose(1, 2); view
  %o = poot.matmul %p, %v : tensor<2x2x8x8xbf16>, tensor<2x2x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x8x16xbf16>
  %out = poot.reshape %ot : tensor<2x8x2x16xbf16> -> tensor<2x8x32xbf16>
  return %out : tensor<2x8x32xbf16>
}
