// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, Praxis with attention_extra_logit (google/praxis
// praxis/layers/attentions.py, DotProductAttention._dot_atten and
// _log_softmax_with_extra_logit): probs = exp(log_softmax_with_extra_logit(
// padded_logits)) with max_logit = maximum(max(logits, -1), extra), exp_x =
// exp(logits - max_logit), sum_exp_x = sum(exp_x) + exp(extra - max_logit),
// log-probs = logits - log(sum_exp_x) - max_logit. The extra logit (0.0
// here) is one more column in the normaliser, like an attention sink: the
// weights of a row sum to less than 1; must not fuse as plain attention.
// query *= dim_per_head ** -0.5, einsum BTNH,BSNH->BNTS, causal mask from
// attentions.causal_mask (f32 input) applied by apply_mask_to_logits, all
// f32. B = 1, T = 5, N = 2, H = 16.

// CHECK-LABEL: func.func @nm_praxis_attention_extra_logit_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.max' at line {{[0-9]+}} is subtracted inside the exp but is no log-sum-exp (log(sum(exp(x))) or m + log(sum(exp(x - m)))): nothing normalises the probabilities
func.func @nm_praxis_attention_extra_logit_f32(%q: tensor<1x5x2x16xf32>, %k: tensor<1x5x2x16xf32>,
                                               %v: tensor<1x5x2x16xf32>) -> tensor<1x5x2x16xf32> {
  %sq = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %sq : tensor<1x5x2x16xf32>, tensor<f32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xf32>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x16xf32>
  %logits = poot.matmul %qh, %kh : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  %ar = poot.iota {dim = 0 : i64} : tensor<5xi32>
  %c0 = poot.reshape %ar : tensor<5xi32> -> tensor<1x1x1x5xi32>
  %c1 = poot.broadcast %c0 {shape = array<i64: 5, 1, 1, 5>} : tensor<1x1x1x5xi32>
  %col = poot.reshape %c1 : tensor<5x1x1x5xi32> -> tensor<5x5xi32>
  %r0 = poot.reshape %ar : tensor<5xi32> -> tensor<1x5x1x1xi32>
  %r1 = poot.broadcast %r0 {shape = array<i64: 1, 5, 5, 1>} : tensor<1x5x1x1xi32>
  %row = poot.reshape %r1 : tensor<1x5x5x1xi32> -> tensor<5x5xi32>
  %lt = poot.compare lt, %row, %col : tensor<5x5xi32>, tensor<5x5xi32>
  %ltf = poot.convert %lt : tensor<5x5xi1> -> tensor<5x5xf32>
  %minv = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %mk = poot.mul %ltf, %minv : tensor<5x5xf32>, tensor<f32>
  %mask = poot.reshape %mk : tensor<5x5xf32> -> tensor<1x1x5x5xf32>
  %half = poot.constant dense<0.5> : tensor<f32>
  %thr = poot.mul %minv, %half : tensor<f32>, tensor<f32>
  %keep = poot.compare ge, %mask, %thr : tensor<1x1x5x5xf32>, tensor<f32>
  %pl = poot.select %keep, %logits, %minv : tensor<1x1x5x5xi1>, tensor<1x2x5x5xf32>, tensor<f32>
  // _log_softmax_with_extra_logit
  %mx0 = poot.reduce_max %pl {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %extra = poot.constant dense<0.0> : tensor<f32>
  %mx = poot.max %mx0, %extra : tensor<1x2x5x1xf32>, tensor<f32>
  %d = poot.sub %pl, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %s0 = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %xd = poot.sub %extra, %mx : tensor<f32>, tensor<1x2x5x1xf32>
  %xe = poot.exp %xd : tensor<1x2x5x1xf32>
  %s = poot.add %s0, %xe : tensor<1x2x5x1xf32>, tensor<1x2x5x1xf32>
  %ls = poot.log %s : tensor<1x2x5x1xf32>
  %lp0 = poot.sub %pl, %ls : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %lp = poot.sub %lp0, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %probs = poot.exp %lp : tensor<1x2x5x5xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xf32>
  %enc = poot.matmul %probs, %vh : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  %o = poot.transpose %enc {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x16xf32>
  return %o : tensor<1x5x2x16xf32>
}
