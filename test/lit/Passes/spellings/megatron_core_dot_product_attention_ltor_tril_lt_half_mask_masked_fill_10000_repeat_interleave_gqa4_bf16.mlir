// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// NVIDIA/Megatron-LM, megatron-core 0.9.0: megatron/core/transformer/
// dot_product_attention.py DotProductAttention.forward with
// megatron/core/fusions/fused_softmax.py FusedScaleMaskSoftmax
// .forward_torch_softmax (the fused kernel is unavailable: sk = 6 is not
// in (16, 4096]) and megatron/core/transformer/utils.py
// attention_mask_func; bf16, attention_softmax_in_fp32,
// apply_query_key_layer_scaling False (coeff None, norm_factor =
// sqrt(hn), softmax scale None), eval (dropout a no-op). The mask is the
// one the caller passes with attn_mask_type causal, built as
// get_ltor_masks_and_position_ids (megatron/training/utils.py, and
// _get_ltor_masks_and_position_ids in megatron/core/datasets/
// gpt_dataset.py) does with reset_attention_mask False: torch.tril(
// torch.ones((1, s, s))).view(1, 1, s, s), then attention_mask < 0.5
// (True = masked). Activations are seq-first [s, b, heads, hn] (the
// projections and rotary are left outside). key / value
// .repeat_interleave(np // ng, dim=2); query.reshape(sq, b * np, hn),
// key.view(sk, b * np, hn); torch.baddbmm(buffer, query.transpose(0, 1),
// key.transpose(0, 1).transpose(1, 2), beta=0.0, alpha=1 / norm_factor);
// .view(b, np, sq, sk); input.float(); attention_scores.masked_fill_(mask,
// -10000.0); torch.nn.Softmax(dim=-1); probs.bfloat16();
// value.view(sk, b * np, hn); probs.view(b * np, sq, sk); torch.bmm(probs,
// value.transpose(0, 1)); .view(b, np, sq, hn); .permute(2, 0, 1, 3)
// .contiguous(); .view(sq, b, hp). s = 6, b = 2, 8 query heads in 2
// query groups, hn = 16.
//
// Strongest form: the bool mask is true exactly on t > i (a tril of ones
// below 0.5), the -10000 fill hides by its size (<= -8192) and every row
// keeps its diagonal key: one fused op {causal, n_rep = 4, scale = 0.25}
// (repeat_interleave is the h / 4 grouping), no tensor mask.

// CHECK-LABEL: func.func @megatron_core_dot_product_attention_ltor_tril_lt_half_mask_masked_fill_10000_repeat_interleave_gqa4_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal{{$}}
func.func @megatron_core_dot_product_attention_ltor_tril_lt_half_mask_masked_fill_10000_repeat_interleave_gqa4_bf16(
    %query: tensor<6x2x8x16xbf16>, %key: tensor<6x2x2x16xbf16>, %value: tensor<6x2x2x16xbf16>) -> tensor<6x2x128xbf16> {
  // get_ltor_masks_and_position_ids: torch.tril(torch.ones((att_mask_batch, seq_length, seq_length))).view(att_mask_batch, 1, seq_length, seq_length)
  %ones = poot.constant dense<1.0> : tensor<1x6x6xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %ri = poot.iota {dim = 1 : i64} : tensor<1x6x6xi64>
  %ci = poot.iota {dim = 2 : i64} : tensor<1x6x6xi64>
  %cmr = poot.sub %ci, %ri : tensor<1x6x6xi64>, tensor<1x6x6xi64>
  %c0 = poot.constant dense<0> : tensor<i64>
  %low = poot.compare le, %cmr, %c0 : tensor<1x6x6xi64>, tensor<i64>
  %tril = poot.select %low, %ones, %zf : tensor<1x6x6xi1>, tensor<1x6x6xf32>, tensor<f32>
  %tril4 = poot.reshape %tril : tensor<1x6x6xf32> -> tensor<1x1x6x6xf32>
  // attention_mask = (attention_mask < 0.5)
  %half = poot.constant dense<0.5> : tensor<f32>
  %attention_mask = poot.compare lt, %tril4, %half : tensor<1x1x6x6xf32>, tensor<f32>
  // key.repeat_interleave(np // ng, dim=2); value likewise: [sk, b, ng, hn] -> [sk, b, np, hn]
  %k5 = poot.reshape %key : tensor<6x2x2x16xbf16> -> tensor<6x2x2x1x16xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 6, 2, 2, 4, 16>} : tensor<6x2x2x1x16xbf16>
  %kr = poot.reshape %kb : tensor<6x2x2x4x16xbf16> -> tensor<6x2x8x16xbf16>
  %v5 = poot.reshape %value : tensor<6x2x2x16xbf16> -> tensor<6x2x2x1x16xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 6, 2, 2, 4, 16>} : tensor<6x2x2x1x16xbf16>
  %vr = poot.reshape %vb : tensor<6x2x2x4x16xbf16> -> tensor<6x2x8x16xbf16>
  // query.reshape(sq, b * np, -1); key.view(sk, b * np, -1)
  %q3 = poot.reshape %query : tensor<6x2x8x16xbf16> -> tensor<6x16x16xbf16>
  %k3 = poot.reshape %kr : tensor<6x2x8x16xbf16> -> tensor<6x16x16xbf16>
  // torch.baddbmm(buffer, query.transpose(0, 1), key.transpose(0, 1).transpose(1, 2), beta=0.0, alpha=(1.0 / self.norm_factor))
  %qt = poot.transpose %q3 {perm = array<i64: 1, 0, 2>} : tensor<6x16x16xbf16>
  %kt0 = poot.transpose %k3 {perm = array<i64: 1, 0, 2>} : tensor<6x16x16xbf16>
  %kt = poot.transpose %kt0 {perm = array<i64: 0, 2, 1>} : tensor<16x6x16xbf16>
  %mm = poot.matmul %qt, %kt : tensor<16x6x16xbf16>, tensor<16x16x6xbf16>
  %alpha = poot.constant dense<0.25> : tensor<bf16>
  %matmul_result = poot.mul %mm, %alpha : tensor<16x6x6xbf16>, tensor<bf16>
  // attention_scores = matmul_result.view(b, np, sq, sk)
  %scores = poot.reshape %matmul_result : tensor<16x6x6xbf16> -> tensor<2x8x6x6xbf16>
  // forward_torch_softmax: input = input.float(); mask_output = attention_mask_func(input, mask) = masked_fill_(mask, -10000.0)
  %sf = poot.convert %scores : tensor<2x8x6x6xbf16> -> tensor<2x8x6x6xf32>
  %fill = poot.constant dense<-10000.0> : tensor<f32>
  %sm = poot.select %attention_mask, %fill, %sf : tensor<1x1x6x6xi1>, tensor<f32>, tensor<2x8x6x6xf32>
  // probs = torch.nn.Softmax(dim=-1)(mask_output); probs.bfloat16()
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x8x6x6xf32>
  %d = poot.sub %sm, %mx : tensor<2x8x6x6xf32>, tensor<2x8x6x1xf32>
  %e = poot.exp %d : tensor<2x8x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x6x6xf32>
  %p = poot.div %e, %z : tensor<2x8x6x6xf32>, tensor<2x8x6x1xf32>
  %pb = poot.convert %p : tensor<2x8x6x6xf32> -> tensor<2x8x6x6xbf16>
  // value.view(sk, b * np, -1); attention_probs.view(b * np, sq, -1); torch.bmm(attention_probs, value.transpose(0, 1))
  %v3 = poot.reshape %vr : tensor<6x2x8x16xbf16> -> tensor<6x16x16xbf16>
  %p3 = poot.reshape %pb : tensor<2x8x6x6xbf16> -> tensor<16x6x6xbf16>
  %vt = poot.transpose %v3 {perm = array<i64: 1, 0, 2>} : tensor<6x16x16xbf16>
  %context = poot.matmul %p3, %vt : tensor<16x6x6xbf16>, tensor<16x6x16xbf16>
  // context.view(b, np, sq, hn).permute(2, 0, 1, 3).contiguous().view(sq, b, hp)
  %c4 = poot.reshape %context : tensor<16x6x16xbf16> -> tensor<2x8x6x16xbf16>
  %cp = poot.transpose %c4 {perm = array<i64: 2, 0, 1, 3>} : tensor<2x8x6x16xbf16>
  %out = poot.reshape %cp : tensor<6x2x8x16xbf16> -> tensor<6x2x128xbf16>
  return %out : tensor<6x2x128xbf16>
}
