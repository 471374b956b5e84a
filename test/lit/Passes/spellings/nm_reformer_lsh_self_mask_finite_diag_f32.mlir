// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, HF transformers Reformer (models/reformer/modeling_reformer.py,
// LSHSelfAttention.forward and _attend) on a sequence no longer than a
// chunk (do_standard_self_attention), decoder, f32: shared query/key
// vectors, key_vectors = _len_and_dim_norm(qk) (x * rsqrt(mean(x^2) +
// 1e-6) / sqrt(d)); query_key_dots = matmul(qk, key^T); the causal mask
// ge(query_idx, key_idx) applied with torch.where(mask, dots, -1e9); then
// the self mask, always applied: torch.where(ne(query_idx, key_idx), dots,
// -1e5); logits = torch.logsumexp(dots, -1, keepdim) (m + log(sum(exp(x -
// m)))); probs = exp(dots - logits); @ v. A token attends to itself only
// through the finite -1e5: row 0, whose only causal key is itself, puts
// all its weight there (-1e5 beats -1e9), every other row gives itself
// weight exp(-1e5 - max) = 0. No band and no additive mask (the diagonal is
// replaced, not shifted); must not fuse. B = 1, H = 2, n = 6, d = 16.

// CHECK-LABEL: func.func @nm_reformer_lsh_self_mask_finite_diag_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
// EXPLAIN: remark: attention declined: finite mask fill -1e+09 with rows that may have no visible key
func.func @nm_reformer_lsh_self_mask_finite_diag_f32(%qk: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>)
    -> tensor<1x2x6x16xf32> {
  // key_vectors = _len_and_dim_norm(query_key_vectors, sqrt(16))
  %x2 = poot.mul %qk, %qk : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
  %xs = poot.reduce_sum %x2 {axis = 3 : i64, keepdim} : tensor<1x2x6x16xf32>
  %n16 = poot.constant dense<16.0> : tensor<f32>
  %var = poot.div %xs, %n16 : tensor<1x2x6x1xf32>, tensor<f32>
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %ve = poot.add %var, %eps : tensor<1x2x6x1xf32>, tensor<f32>
  %r = poot.rsqrt %ve : tensor<1x2x6x1xf32>
  %kn = poot.mul %qk, %r : tensor<1x2x6x16xf32>, tensor<1x2x6x1xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %key = poot.div %kn, %sq : tensor<1x2x6x16xf32>, tensor<f32>
  // _attend
  %kt = poot.transpose %key {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %dots = poot.matmul %qk, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %qi0 = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %qi = poot.reshape %qi0 : tensor<6xi64> -> tensor<6x1xi64>
  %ki = poot.reshape %qi0 : tensor<6xi64> -> tensor<1x6xi64>
  %causal = poot.compare ge, %qi, %ki : tensor<6x1xi64>, tensor<1x6xi64>
  %mval = poot.constant dense<-1.0e+09> : tensor<f32>
  %d1 = poot.select %causal, %dots, %mval : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %self = poot.compare ne, %qi, %ki : tensor<6x1xi64>, tensor<1x6xi64>
  %smval = poot.constant dense<-1.0e+05> : tensor<f32>
  %d2 = poot.select %self, %d1, %smval : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  // logsumexp
  %m = poot.reduce_max %d2 {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %xm = poot.sub %d2, %m : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %ex = poot.exp %xm : tensor<1x2x6x6xf32>
  %se = poot.reduce_sum %ex {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %ls = poot.log %se : tensor<1x2x6x1xf32>
  %lse = poot.add %m, %ls : tensor<1x2x6x1xf32>, tensor<1x2x6x1xf32>
  %pl = poot.sub %d2, %lse : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %probs = poot.exp %pl : tensor<1x2x6x6xf32>
  %out = poot.matmul %probs, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %out : tensor<1x2x6x16xf32>
}
