// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, tracel-ai/burn (burn-nn MultiHeadAttention with quiet_softmax
// = true, burn-tensor activation::quiet_softmax): attention_linear views
// [B, L, H, d_k] and swap_dims(1, 2); attn_scores = q.matmul(k.swap_dims(
// 2, 3)).div_scalar(sqrt(d_k)); the autoregressive mask_attn (true above
// the diagonal) reshaped [B, 1, L, L] and mask_fill'ed with min_float =
// -1e4; quiet_softmax(x, 3): max_vals = x.detach().max_dim(3), exp_x =
// exp(x - max_vals), exp_x / (sum_dim(exp_x, 3) + exp(-max_vals)), i.e.
// exp(x) / (1 + sum exp(x)): the weights of a row sum to less than 1 (the
// "softmax1" of Attention Is Off By One). No softmax; must decline.
// MHA, B = 1, H = 2, L = 6, d_k = 16.

// CHECK-LABEL: func.func @nm_burn_mha_quiet_softmax_exp_neg_max_causal_f32
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
func.func @nm_burn_mha_quiet_softmax_exp_neg_max_causal_f32(
    %xq: tensor<1x6x32xf32>, %xk: tensor<1x6x32xf32>, %xv: tensor<1x6x32xf32>) -> tensor<1x6x32xf32> {
  %q4 = poot.reshape %xq : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %k4 = poot.reshape %xk : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %v4 = poot.reshape %xv : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %s = poot.div %s0, %sq : tensor<1x2x6x6xf32>, tensor<f32>
  // generate_autoregressive_mask: true where t > i
  %i = poot.iota {dim = 1 : i64} : tensor<1x6x6xi64>
  %t = poot.iota {dim = 2 : i64} : tensor<1x6x6xi64>
  %fut = poot.compare gt, %t, %i : tensor<1x6x6xi64>, tensor<1x6x6xi64>
  %fut4 = poot.reshape %fut : tensor<1x6x6xi1> -> tensor<1x1x6x6xi1>
  %minf = poot.constant dense<-1.0e+04> : tensor<f32>
  %sm = poot.select %fut4, %minf, %s : tensor<1x1x6x6xi1>, tensor<f32>, tensor<1x2x6x6xf32>
  // quiet_softmax(attn_scores, 3)
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %sm, %mx : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %nmx = poot.neg %mx : tensor<1x2x6x1xf32>
  %emx = poot.exp %nmx : tensor<1x2x6x1xf32>
  %den = poot.add %z, %emx : tensor<1x2x6x1xf32>, tensor<1x2x6x1xf32>
  %p = poot.div %e, %den : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %o0 = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  %o1 = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x16xf32>
  %o = poot.reshape %o1 : tensor<1x6x2x16xf32> -> tensor<1x6x32xf32>
  return %o : tensor<1x6x32xf32>
}
