// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, allenai/allennlp: ScaledDotProductMatrixAttention
// (allennlp/modules/matrix_attention/scaled_dot_product_matrix_attention
// .py: matrix_1.bmm(matrix_2.transpose(2, 1)) / sqrt(d)) between a passage
// and a question, then allennlp/nn/util.py masked_softmax(similarity,
// question_mask) with memory_efficient=False (BiDAF's passage-to-question
// attention) and weighted_sum (attention.bmm(matrix)): the mask is
// unsqueezed to [B, 1, Q]; result = softmax(vector * mask) (hidden scores
// become 0, not -inf); result = result * mask; result / (result.sum(-1,
// keepdim) + tiny_value_of_dtype(f32) = 1e-13). The renormalised weights
// are exp(s_j) m_j / (sum_k m_k exp(s_k) + 1e-13 * sum_k exp(s_k m_k)):
// not a masked softmax (the epsilon, and 0 instead of NaN on an all-hidden
// row). Must decline. B = 2, P = 5, Q = 7, d = 32.

// CHECK-LABEL: func.func @nm_allennlp_masked_softmax_renormalize_eps_f32
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
func.func @nm_allennlp_masked_softmax_renormalize_eps_f32(
    %passage: tensor<2x5x32xf32>, %question: tensor<2x7x32xf32>,
    %question_mask: tensor<2x7xi1>) -> tensor<2x5x32xf32> {
  // ScaledDotProductMatrixAttention
  %qt = poot.transpose %question {perm = array<i64: 0, 2, 1>} : tensor<2x7x32xf32>
  %sim0 = poot.matmul %passage, %qt : tensor<2x5x32xf32>, tensor<2x32x7xf32>
  %sq = poot.constant dense<5.65685415> : tensor<f32>
  %sim = poot.div %sim0, %sq : tensor<2x5x7xf32>, tensor<f32>
  // masked_softmax(vector, mask, dim=-1, memory_efficient=False)
  %m3 = poot.reshape %question_mask : tensor<2x7xi1> -> tensor<2x1x7xi1>
  %mf = poot.convert %m3 : tensor<2x1x7xi1> -> tensor<2x1x7xf32>
  %vm = poot.mul %sim, %mf : tensor<2x5x7xf32>, tensor<2x1x7xf32>
  %mx = poot.reduce_max %vm {axis = 2 : i64, keepdim} : tensor<2x5x7xf32>
  %d = poot.sub %vm, %mx : tensor<2x5x7xf32>, tensor<2x5x1xf32>
  %e = poot.exp %d : tensor<2x5x7xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x5x7xf32>
  %r0 = poot.div %e, %z : tensor<2x5x7xf32>, tensor<2x5x1xf32>
  %r1 = poot.mul %r0, %mf : tensor<2x5x7xf32>, tensor<2x1x7xf32>
  %rs = poot.reduce_sum %r1 {axis = 2 : i64, keepdim} : tensor<2x5x7xf32>
  %tiny = poot.constant dense<1.0e-13> : tensor<f32>
  %rse = poot.add %rs, %tiny : tensor<2x5x1xf32>, tensor<f32>
  %r = poot.div %r1, %rse : tensor<2x5x7xf32>, tensor<2x5x1xf32>
  // weighted_sum(question, attention) = attention.bmm(question)
  %o = poot.matmul %r, %question : tensor<2x5x7xf32>, tensor<2x7x32xf32>
  return %o : tensor<2x5x32xf32>
}
