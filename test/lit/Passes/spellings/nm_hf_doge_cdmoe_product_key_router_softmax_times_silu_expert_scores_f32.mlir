// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, HF transformers Doge (models/doge/modeling_doge.py,
// DogeCDMoE.forward), the routed part of the cross-domain mixture of
// experts, f32 (the shared-expert MLP added after it is left out): router
// logits viewed (2, B * L, num_keys), topk on each half (product keys),
// all_scores = scores_x[..., None] + scores_y[..., None, :] with the
// matching expert ids, a second topk(top_k) and all_indices.gather(-1, ..);
// routing_weights = softmax(scores) over the chosen experts;
// experts_weights = silu(down_embed(indices) . h) * routing_weights;
// experts_states = experts_weights.view(N, 1, -1) @ up_embed(indices).
// A softmax-weighted sum over gathered rows, but the weights are
// multiplied after the softmax by a second, data-dependent factor
// (silu of the down-projection), and the logits are top-k values, not a
// product with the rows that are summed: no attention. Must decline.
// num_experts 16 (num_keys 4), top_k 4, B * L = 3, C = 8.

// CHECK-LABEL: func.func @nm_hf_doge_cdmoe_product_key_router_softmax_times_silu_expert_scores_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined:
func.func @nm_hf_doge_cdmoe_product_key_router_softmax_times_silu_expert_scores_f32(
    %hidden_states: tensor<1x3x8xf32>,
    %router_gate_weight: tensor<8x8xf32>,
    %down_embed_weight: tensor<16x8xf32>,
    %up_embed_weight: tensor<16x8xf32>)
    -> tensor<1x3x8xf32> {
  // router_logits = self.router_gate(hidden_states).view(2, bsz * seq_len, -1)
  %wrt = poot.transpose %router_gate_weight {perm = array<i64: 1, 0>} : tensor<8x8xf32>
  %rl = poot.matmul %hidden_states, %wrt : tensor<1x3x8xf32>, tensor<8x8xf32>
  %router_logits = poot.reshape %rl : tensor<1x3x8xf32> -> tensor<2x3x4xf32>
  // (scores_x, scores_y), (indices_x, indices_y) = router_logits.topk(num_keys, dim=-1)
  %rkv, %rki = poot.topk %router_logits {k = 4 : i64} : tensor<2x3x4xf32>
  %sx0 = poot.slice %rkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 3, 4>, step = array<i64: 1, 1, 1>} : tensor<2x3x4xf32>
  %scores_x = poot.reshape %sx0 : tensor<1x3x4xf32> -> tensor<3x4xf32>
  %sy0 = poot.slice %rkv {start = array<i64: 1, 0, 0>, limit = array<i64: 2, 3, 4>, step = array<i64: 1, 1, 1>} : tensor<2x3x4xf32>
  %scores_y = poot.reshape %sy0 : tensor<1x3x4xf32> -> tensor<3x4xf32>
  %ix0 = poot.slice %rki {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 3, 4>, step = array<i64: 1, 1, 1>} : tensor<2x3x4xi32>
  %indices_x = poot.reshape %ix0 : tensor<1x3x4xi32> -> tensor<3x4xi32>
  %iy0 = poot.slice %rki {start = array<i64: 1, 0, 0>, limit = array<i64: 2, 3, 4>, step = array<i64: 1, 1, 1>} : tensor<2x3x4xi32>
  %indices_y = poot.reshape %iy0 : tensor<1x3x4xi32> -> tensor<3x4xi32>
  // all_scores = scores_x[..., None] + scores_y[..., None, :]; all_indices = indices_x[..., None] * num_keys + indices_y[..., None, :]
  %sxu = poot.reshape %scores_x : tensor<3x4xf32> -> tensor<3x4x1xf32>
  %syu = poot.reshape %scores_y : tensor<3x4xf32> -> tensor<3x1x4xf32>
  %all_scores3 = poot.add %sxu, %syu : tensor<3x4x1xf32>, tensor<3x1x4xf32>
  %num_keys = poot.constant dense<4> : tensor<i32>
  %ixu = poot.reshape %indices_x : tensor<3x4xi32> -> tensor<3x4x1xi32>
  %ixk = poot.mul %ixu, %num_keys : tensor<3x4x1xi32>, tensor<i32>
  %iyu = poot.reshape %indices_y : tensor<3x4xi32> -> tensor<3x1x4xi32>
  %all_indices3 = poot.add %ixk, %iyu : tensor<3x4x1xi32>, tensor<3x1x4xi32>
  %all_scores = poot.reshape %all_scores3 : tensor<3x4x4xf32> -> tensor<3x16xf32>
  %all_indices = poot.reshape %all_indices3 : tensor<3x4x4xi32> -> tensor<3x16xi32>
  // scores, position_indices = all_scores.topk(top_k, dim=-1); indices = all_indices.gather(-1, position_indices)
  %topv, %topi = poot.topk %all_scores {k = 4 : i64} : tensor<3x16xf32>
  %row = poot.iota {dim = 0 : i64} : tensor<3x4xi32>
  %row_len = poot.constant dense<16> : tensor<i32>
  %rowoff = poot.mul %row, %row_len : tensor<3x4xi32>, tensor<i32>
  %flat_pos = poot.add %rowoff, %topi : tensor<3x4xi32>, tensor<3x4xi32>
  %all_indices_flat = poot.reshape %all_indices : tensor<3x16xi32> -> tensor<48xi32>
  %indices = poot.gather %all_indices_flat[%flat_pos] {axis = 0 : i64} : tensor<48xi32>, tensor<3x4xi32>
  // routing_weights = F.softmax(scores, dim=-1) (norm_topk_prob False)
  %m = poot.reduce_max %topv {axis = 1 : i64, keepdim} : tensor<3x4xf32>
  %d = poot.sub %topv, %m : tensor<3x4xf32>, tensor<3x1xf32>
  %e = poot.exp %d : tensor<3x4xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<3x4xf32>
  %routing_weights = poot.div %e, %z : tensor<3x4xf32>, tensor<3x1xf32>
  // down_embed = self.down_embed(indices); up_embed = self.up_embed(indices)
  %down_embed = poot.gather %down_embed_weight[%indices] {axis = 0 : i64} : tensor<16x8xf32>, tensor<3x4xi32>
  %up_embed = poot.gather %up_embed_weight[%indices] {axis = 0 : i64} : tensor<16x8xf32>, tensor<3x4xi32>
  // experts_weights = matmul(down_embed, hidden_states.view(bsz * seq_len, -1, 1)).view(bsz * seq_len, -1)
  %hcol = poot.reshape %hidden_states : tensor<1x3x8xf32> -> tensor<3x8x1xf32>
  %ew3 = poot.matmul %down_embed, %hcol : tensor<3x4x8xf32>, tensor<3x8x1xf32>
  %experts_weights0 = poot.reshape %ew3 : tensor<3x4x1xf32> -> tensor<3x4xf32>
  // experts_weights = act_fn(experts_weights) * routing_weights, act_fn = silu (x / (1 + exp(-x)))
  %one = poot.constant dense<1.0> : tensor<f32>
  %nx = poot.neg %experts_weights0 : tensor<3x4xf32>
  %enx = poot.exp %nx : tensor<3x4xf32>
  %den = poot.add %one, %enx : tensor<f32>, tensor<3x4xf32>
  %silu = poot.div %experts_weights0, %den : tensor<3x4xf32>, tensor<3x4xf32>
  %experts_weights = poot.mul %silu, %routing_weights : tensor<3x4xf32>, tensor<3x4xf32>
  // experts_states = matmul(experts_weights.view(bsz * seq_len, 1, -1), up_embed).view(bsz, seq_len, -1)
  %ewv = poot.reshape %experts_weights : tensor<3x4xf32> -> tensor<3x1x4xf32>
  %es3 = poot.matmul %ewv, %up_embed : tensor<3x1x4xf32>, tensor<3x4x8xf32>
  %experts_states = poot.reshape %es3 : tensor<3x1x8xf32> -> tensor<1x3x8xf32>
  return %experts_states : tensor<1x3x8xf32>
}
