// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers BEiT (models/beit/modeling_beit.py): BeitSelfAttention
// .forward with BeitRelativePositionBias over a 2 x 3 patch window plus the
// CLS token: relative_position_bias_table [(2*2-1)*(2*3-1)+3, H] indexed
// by the registered relative_position_index buffer .view(-1) (relative
// (dh, dw) codes between patches, and three extra entries for cls-to-token,
// token-to-cls and cls-to-cls), .view(N, N, -1).permute(2, 0, 1),
// unsqueeze(0); attention_scores = matmul(q, k^T) / sqrt(head_dim) +
// bias; softmax(dim=-1); @ v; permute(0, 2, 1, 3) and view back to
// [B, N, H * D]. A learned bias per head and cell: a tensor mask.
// MHA, B = 2, H = 4, N = 7 (1 + 2 * 3), D = 24.

// CHECK-LABEL: func.func @hf_beit_relative_position_bias_table_gather_cls_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 1 : i64, scale = 0.2041{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.204124, tensor mask
func.func @hf_beit_relative_position_bias_table_gather_cls_f32(
    %q: tensor<2x4x7x24xf32>, %k: tensor<2x4x7x24xf32>, %v: tensor<2x4x7x24xf32>,
    %table: tensor<18x4xf32>) -> tensor<2x7x96xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x7x24xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x4x7x24xf32>, tensor<2x4x24x7xf32>
  %sq = poot.constant dense<4.89897966> : tensor<f32>
  %s1 = poot.div %s0, %sq : tensor<2x4x7x7xf32>, tensor<f32>
  // BeitRelativePositionBias.forward
  %idx = poot.constant dense<[17, 15, 15, 15, 15, 15, 15, 16, 7, 6, 5, 2, 1, 0, 16, 8, 7, 6, 3, 2, 1, 16, 9, 8, 7, 4, 3, 2, 16, 12, 11, 10, 7, 6, 5, 16, 13, 12, 11, 8, 7, 6, 16, 14, 13, 12, 9, 8, 7]> : tensor<49xi64>
  %g = poot.gather %table[%idx] {axis = 0 : i64} : tensor<18x4xf32>, tensor<49xi64>
  %g3 = poot.reshape %g : tensor<49x4xf32> -> tensor<7x7x4xf32>
  %bias3 = poot.transpose %g3 {perm = array<i64: 2, 0, 1>} : tensor<7x7x4xf32>
  %bias = poot.reshape %bias3 : tensor<4x7x7xf32> -> tensor<1x4x7x7xf32>
  %s = poot.add %s1, %bias : tensor<2x4x7x7xf32>, tensor<1x4x7x7xf32>
  %mx = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x4x7x7xf32>
  %d = poot.sub %s, %mx : tensor<2x4x7x7xf32>, tensor<2x4x7x1xf32>
  %e = poot.exp %d : tensor<2x4x7x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x7x7xf32>
  %p = poot.div %e, %z : tensor<2x4x7x7xf32>, tensor<2x4x7x1xf32>
  %c0 = poot.matmul %p, %v : tensor<2x4x7x7xf32>, tensor<2x4x7x24xf32>
  %c1 = poot.transpose %c0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x7x24xf32>
  %c = poot.reshape %c1 : tensor<2x7x4x24xf32> -> tensor<2x7x96xf32>
  return %c : tensor<2x7x96xf32>
}
