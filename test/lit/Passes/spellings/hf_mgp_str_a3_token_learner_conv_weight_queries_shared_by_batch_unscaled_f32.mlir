// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers MGP-STR (models/mgp_str/modeling_mgp_str.py,
// MgpstrA3Module.forward), the A^3 token learner, f32: the token-normed
// hidden states [B, N, C] are transposed to [B, C, N, 1]; tokenLearner is a
// grouped 1x1 Conv2d (groups = 8, no bias) followed by a 1x1 Conv2d to
// max_token_length channels, so selected = W2 [T, C] . h1 [B, C, N] (the
// 1x1 convs written as the products they are); attentions =
// softmax(selected.flatten(2), dim=-1) over the N tokens; feat is another
// grouped 1x1 conv of the hidden states, flatten(2).transpose(1, 2); the
// output einsum('...si,...id->...sd', attentions, feat). As attention: the
// queries are the conv weight W2, one set for the whole batch, the keys the
// grouped conv output (pre-transposed, [B, C, N]), the values feat; no
// scale, no mask. B = 2, N = 6, C = 16, T = 4.

// Strongest form: one attention with T query rows per batch row (W2
// broadcast to the batch in front of it), N keys of width C, n_rep 1,
// scale 1.
// CHECK-LABEL: func.func @hf_mgp_str_a3_token_learner_conv_weight_queries_shared_by_batch_unscaled_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1; the one query head broadcast to the 2 key heads{{$}}
func.func @hf_mgp_str_a3_token_learner_conv_weight_queries_shared_by_batch_unscaled_f32(
    %hidden_states: tensor<2x6x16xf32>,
    %token_learner_0_weight: tensor<16x2xf32>,
    %token_learner_1_weight: tensor<4x16xf32>,
    %feat_weight: tensor<16x2xf32>)
    -> tensor<2x4x16xf32> {
  // hidden_states.transpose(1, 2).unsqueeze(-1): [B, C, N, 1]
  %xt = poot.transpose %hidden_states {perm = array<i64: 0, 2, 1>} : tensor<2x6x16xf32>
  %x4 = poot.reshape %xt : tensor<2x16x6xf32> -> tensor<2x16x6x1xf32>
  // tl0: Conv2d(C, C, 1x1, groups=8, bias=False): per group a [2, 2] product
  %tl0_in = poot.reshape %x4 : tensor<2x16x6x1xf32> -> tensor<2x8x2x6xf32>
  %tl0_w = poot.reshape %token_learner_0_weight : tensor<16x2xf32> -> tensor<8x2x2xf32>
  %tl0_mm = poot.matmul %tl0_w, %tl0_in : tensor<8x2x2xf32>, tensor<2x8x2x6xf32>
  %tl0 = poot.reshape %tl0_mm : tensor<2x8x2x6xf32> -> tensor<2x16x6x1xf32>
  // tokenLearner[1]: Conv2d(C, max_token_length, 1x1, bias=False), then selected.flatten(2)
  %tl0f = poot.reshape %tl0 : tensor<2x16x6x1xf32> -> tensor<2x16x6xf32>
  %selected = poot.matmul %token_learner_1_weight, %tl0f : tensor<4x16xf32>, tensor<2x16x6xf32>
  // attentions = F.softmax(selected, dim=-1)
  %m = poot.reduce_max %selected {axis = 2 : i64, keepdim} : tensor<2x4x6xf32>
  %d = poot.sub %selected, %m : tensor<2x4x6xf32>, tensor<2x4x1xf32>
  %e = poot.exp %d : tensor<2x4x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x4x6xf32>
  %attentions = poot.div %e, %z : tensor<2x4x6xf32>, tensor<2x4x1xf32>
  // feat = self.feat(hidden_states).flatten(2).transpose(1, 2): [B, N, C]
  // feat4: Conv2d(C, C, 1x1, groups=8, bias=False): per group a [2, 2] product
  %feat4_in = poot.reshape %x4 : tensor<2x16x6x1xf32> -> tensor<2x8x2x6xf32>
  %feat4_w = poot.reshape %feat_weight : tensor<16x2xf32> -> tensor<8x2x2xf32>
  %feat4_mm = poot.matmul %feat4_w, %feat4_in : tensor<8x2x2xf32>, tensor<2x8x2x6xf32>
  %feat4 = poot.reshape %feat4_mm : tensor<2x8x2x6xf32> -> tensor<2x16x6x1xf32>
  %featf = poot.reshape %feat4 : tensor<2x16x6x1xf32> -> tensor<2x16x6xf32>
  %feat = poot.transpose %featf {perm = array<i64: 0, 2, 1>} : tensor<2x16x6xf32>
  // torch.einsum('...si,...id->...sd', attentions, feat)
  %a3 = poot.matmul %attentions, %feat : tensor<2x4x6xf32>, tensor<2x6x16xf32>
  return %a3 : tensor<2x4x16xf32>
}
