// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// huggingface/transformers v4.46.0, src/transformers/models/pvt/
// modeling_pvt.py, PvtEfficientSelfAttention.forward (PVT's spatial-
// reduction attention, sequences_reduction_ratio r = 2), f32, eval.
// query_layer = transpose_for_scores(self.query(hidden_states)) over the
// full sequence N = H_img * W_img = 16; the keys and values come from the
// reduced sequence: hidden_states.permute(0, 2, 1).reshape(B, C, H, W),
// sequence_reduction (Conv2d, kernel = stride = r), reshape(B, C, -1)
// .permute(0, 2, 1), layer_norm, then self.key / self.value (all left
// outside: the inputs are the key / value Linear outputs over the N / r^2
// = 4 reduced tokens). transpose_for_scores: view(size()[:-1] + (heads,
// head_size)).permute(0, 2, 1, 3); scores = torch.matmul(q,
// k.transpose(-1, -2)) / math.sqrt(head_size); softmax(dim=-1); matmul
// with v; permute(0, 2, 1, 3).contiguous().view(B, N, all_head_size).
// B = 1, heads = 2, head size 32, C = 64.
//
// Strongest form: plain attention with more queries (16) than keys (4),
// no mask, n_rep 1, scale 1/sqrt(32):
//   poot.attention q, k, v {n_rep = 1 : i64, scale = 0.17677669529663687 : f64}
//     : tensor<1x2x16x32xf32>, tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32> -> tensor<1x2x16x32xf32>
// Reached (checked against the oracle; the scale is 1 / the f32 splat
// sqrt(32)):
// CHECK-LABEL: func.func @hf_pvt_efficient_self_attention_spatial_reduction_kv_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.17677669{{[0-9]*}} : f64} : tensor<1x2x16x32xf32>, tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32> -> tensor<1x2x16x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777{{$}}
func.func @hf_pvt_efficient_self_attention_spatial_reduction_kv_f32(
    %query_out: tensor<1x16x64xf32>, %key_out: tensor<1x4x64xf32>, %value_out: tensor<1x4x64xf32>)
    -> tensor<1x16x64xf32> {
  // query_layer = self.transpose_for_scores(self.query(hidden_states))
  %q4 = poot.reshape %query_out : tensor<1x16x64xf32> -> tensor<1x16x2x32xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x2x32xf32>
  // key_layer / value_layer = self.transpose_for_scores(self.key / self.value(reduced hidden_states))
  %k4 = poot.reshape %key_out : tensor<1x4x64xf32> -> tensor<1x4x2x32xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x32xf32>
  %v4 = poot.reshape %value_out : tensor<1x4x64xf32> -> tensor<1x4x2x32xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x32xf32>
  // attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x32xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x16x32xf32>, tensor<1x2x32x4xf32>
  // attention_scores = attention_scores / math.sqrt(self.attention_head_size)
  %sq = poot.constant dense<5.65685415> : tensor<f32>
  %s = poot.div %s0, %sq : tensor<1x2x16x4xf32>, tensor<f32>
  // attention_probs = nn.functional.softmax(attention_scores, dim=-1)
  %mx = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x16x4xf32>
  %d = poot.sub %s, %mx : tensor<1x2x16x4xf32>, tensor<1x2x16x1xf32>
  %e = poot.exp %d : tensor<1x2x16x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x16x4xf32>
  %p = poot.div %e, %z : tensor<1x2x16x4xf32>, tensor<1x2x16x1xf32>
  // context_layer = torch.matmul(attention_probs, value_layer)
  %c = poot.matmul %p, %v : tensor<1x2x16x4xf32>, tensor<1x2x4x32xf32>
  // context_layer.permute(0, 2, 1, 3).contiguous().view(new_context_layer_shape)
  %ct = poot.transpose %c {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x16x32xf32>
  %o = poot.reshape %ct : tensor<1x16x2x32xf32> -> tensor<1x16x64xf32>
  return %o : tensor<1x16x64xf32>
}
