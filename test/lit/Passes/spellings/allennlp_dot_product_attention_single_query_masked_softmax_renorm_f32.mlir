// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// allenai/allennlp v2.10.1, allennlp/modules/attention/attention.py
// Attention.forward with allennlp/modules/attention/dot_product_attention.py
// DotProductAttention._forward_internal (normalize=True), then
// allennlp/nn/util.py weighted_sum, f32. One query vector per batch row
// against a matrix of keys that are also the values (the usual
// "attend over the encoder states" use): similarities =
// matrix.bmm(vector.unsqueeze(-1)).squeeze(-1) [B, S] (keys times the
// query, no scale); masked_softmax(similarities, matrix_mask,
// memory_efficient=False): the mask (bool [B, S], same rank, no unsqueeze)
// multiplies the scores, result = softmax(vector * mask, dim=-1) (hidden
// scores become 0, not -inf), result = result * mask, result = result /
// (result.sum(dim=-1, keepdim=True) + tiny_value_of_dtype(f32) = 1e-13);
// weighted_sum(matrix, attention) for a 2-d attention:
// attention.unsqueeze(1).bmm(matrix).squeeze(1). B = 2, S = 7, D = 16.
//
// Strongest form: a decline. The weights are exp(s_j) m_j / (sum_k m_k
// exp(s_k) + 1e-13 * sum_k exp(s_k m_k - max)) (max over s_k m_k, which
// includes the 0 of every hidden key): the epsilon term is not part of
// any masked softmax, and it is not negligible in general (when the
// visible scores sit far below 0 the hidden keys' exp(0 - max) dominate
// the epsilon term). An all-hidden row gives 0 rather than NaN, which
// zero_empty_rows alone would cover, but the epsilon keeps every other
// row from being exactly a masked softmax. No fused form is exact.
// CHECK-LABEL: func.func @allennlp_dot_product_attention_single_query_masked_softmax_renorm_f32
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
func.func @allennlp_dot_product_attention_single_query_masked_softmax_renorm_f32(
    %vector: tensor<2x16xf32>, %matrix: tensor<2x7x16xf32>,
    %matrix_mask: tensor<2x7xi1> {poot.name = "matrix_mask"}) -> tensor<2x16xf32> {
  // DotProductAttention._forward_internal: matrix.bmm(vector.unsqueeze(-1)).squeeze(-1)
  %vu = poot.reshape %vector : tensor<2x16xf32> -> tensor<2x16x1xf32>
  %s3 = poot.matmul %matrix, %vu : tensor<2x7x16xf32>, tensor<2x16x1xf32>
  %s = poot.reshape %s3 : tensor<2x7x1xf32> -> tensor<2x7xf32>
  // masked_softmax: result = nn.functional.softmax(vector * mask, dim=dim)
  %mf = poot.convert %matrix_mask : tensor<2x7xi1> -> tensor<2x7xf32>
  %sm = poot.mul %s, %mf : tensor<2x7xf32>, tensor<2x7xf32>
  %mx = poot.reduce_max %sm {axis = 1 : i64, keepdim} : tensor<2x7xf32>
  %d = poot.sub %sm, %mx : tensor<2x7xf32>, tensor<2x1xf32>
  %e = poot.exp %d : tensor<2x7xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<2x7xf32>
  %p = poot.div %e, %z : tensor<2x7xf32>, tensor<2x1xf32>
  // result = result * mask
  %pm = poot.mul %p, %mf : tensor<2x7xf32>, tensor<2x7xf32>
  // result = result / (result.sum(dim=dim, keepdim=True) + tiny_value_of_dtype(result.dtype))
  %rs = poot.reduce_sum %pm {axis = 1 : i64, keepdim} : tensor<2x7xf32>
  %tiny = poot.constant dense<1.000000e-13> : tensor<f32>
  %den = poot.add %rs, %tiny : tensor<2x1xf32>, tensor<f32>
  %att = poot.div %pm, %den : tensor<2x7xf32>, tensor<2x1xf32>
  // weighted_sum: attention.unsqueeze(1).bmm(matrix).squeeze(1)
  %au = poot.reshape %att : tensor<2x7xf32> -> tensor<2x1x7xf32>
  %o3 = poot.matmul %au, %matrix : tensor<2x1x7xf32>, tensor<2x7x16xf32>
  %o = poot.reshape %o3 : tensor<2x1x16xf32> -> tensor<2x16xf32>
  return %o : tensor<2x16xf32>
}
