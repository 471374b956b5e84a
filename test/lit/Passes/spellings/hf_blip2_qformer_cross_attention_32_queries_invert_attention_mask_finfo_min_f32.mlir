// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.50.0, src/transformers/models/blip_2/
// modeling_blip_2.py, Blip2QFormerMultiHeadAttention.forward as the
// Q-Former's cross-attention (is_cross_attention, position_embedding_type
// "absolute"), eager, f32, eval: the 32 learned query tokens attend to the
// image patch features. Blip2QFormerModel.forward with an
// encoder_attention_mask [B, S] input: encoder_extended_attention_mask =
// self.invert_attention_mask(mask) (modeling_utils.py: mask[:, None, None,
// :].to(f32); (1.0 - m) * finfo(f32).min); in the layer (attention_mask =
// encoder_attention_mask): key_layer = transpose_for_scores(self.key(
// encoder_hidden_states)), value_layer likewise, query_layer =
// transpose_for_scores(self.query(hidden_states)) (view(.., H, D)
// .permute(0, 2, 1, 3); the three linears are left outside, their outputs
// are the inputs); attention_scores = torch.matmul(query_layer,
// key_layer.transpose(-1, -2)) / math.sqrt(D) + attention_mask;
// nn.Softmax(dim=-1); dropout (eval); matmul with value_layer;
// permute(0, 2, 1, 3).contiguous().view(B, 32, H * D). (Blip2Model and
// Blip2ForConditionalGeneration pass an all-ones image mask; here it is
// the caller's input.) B = 2, 32 queries, S = 16 patches, H = 4, D = 16.
//
// Strongest form: the padding mask is an input that may hide every patch
// of a batch row (then the graph averages them, all scores being exactly
// finfo.min), so it is a tensor mask per batch row, [B, 1, Lq, S] as the
// fused op takes it: one fused op, n_rep 1, scale 1/4:
//   poot.attention q, k, v mask(... : tensor<2x1x32x16xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-LABEL: func.func @hf_blip2_qformer_cross_attention_32_queries_invert_attention_mask_finfo_min_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x32x16xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x32x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x32x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_blip2_qformer_cross_attention_32_queries_invert_attention_mask_finfo_min_f32(
    %q_lin: tensor<2x32x64xf32>, %k_lin: tensor<2x16x64xf32>, %v_lin: tensor<2x16x64xf32>,
    %encoder_attention_mask: tensor<2x16xi64> {poot.name = "encoder_attention_mask", poot.range = array<i64: 0, 2>})
    -> tensor<2x32x64xf32> {
  // invert_attention_mask: encoder_attention_mask[:, None, None, :].to(dtype=self.dtype)
  %m4 = poot.reshape %encoder_attention_mask : tensor<2x16xi64> -> tensor<2x1x1x16xi64>
  %mf = poot.convert %m4 : tensor<2x1x1x16xi64> -> tensor<2x1x1x16xf32>
  // (1.0 - encoder_extended_attention_mask) * torch.finfo(self.dtype).min
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %mf : tensor<f32>, tensor<2x1x1x16xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %ext = poot.mul %inv, %min : tensor<2x1x1x16xf32>, tensor<f32>
  // key_layer = self.transpose_for_scores(self.key(encoder_hidden_states)); value_layer likewise
  %k4 = poot.reshape %k_lin : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %key_layer = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x16xf32>
  %v4 = poot.reshape %v_lin : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %value_layer = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x4x16xf32>
  // query_layer = self.transpose_for_scores(self.query(hidden_states))
  %q4 = poot.reshape %q_lin : tensor<2x32x64xf32> -> tensor<2x32x4x16xf32>
  %query_layer = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x32x4x16xf32>
  // attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
  %kt = poot.transpose %key_layer {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x16xf32>
  %s = poot.matmul %query_layer, %kt : tensor<2x4x32x16xf32>, tensor<2x4x16x16xf32>
  // attention_scores = attention_scores / math.sqrt(self.attention_head_size)
  %sqrt_d = poot.constant dense<4.000000e+00> : tensor<f32>
  %sd = poot.div %s, %sqrt_d : tensor<2x4x32x16xf32>, tensor<f32>
  // attention_scores = attention_scores + attention_mask
  %sm = poot.add %sd, %ext : tensor<2x4x32x16xf32>, tensor<2x1x1x16xf32>
  // attention_probs = nn.Softmax(dim=-1)(attention_scores)
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x32x16xf32>
  %d = poot.sub %sm, %mx : tensor<2x4x32x16xf32>, tensor<2x4x32x1xf32>
  %e = poot.exp %d : tensor<2x4x32x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x32x16xf32>
  %p = poot.div %e, %z : tensor<2x4x32x16xf32>, tensor<2x4x32x1xf32>
  // context_layer = torch.matmul(attention_probs_dropped, value_layer)
  %ctx = poot.matmul %p, %value_layer : tensor<2x4x32x16xf32>, tensor<2x4x16x16xf32>
  // context_layer.permute(0, 2, 1, 3).contiguous().view(new_context_layer_shape)
  %ctxt = poot.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x32x16xf32>
  %out = poot.reshape %ctxt : tensor<2x32x4x16xf32> -> tensor<2x32x64xf32>
  return %out : tensor<2x32x64xf32>
}
