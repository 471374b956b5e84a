// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-run %s --quiet

// Near miss of torch_logsumexp_decomposition_guarded_max_outside_causal:
// the max added back (infinities zeroed) is the max of the scores before
// the causal fill, not the max subtracted inside the exp, so the two differ
// on every row whose largest score is masked: no log-sum-exp, declined.

// CHECK-LABEL: func.func @nm_torch_logsumexp_guard_of_another_max
// CHECK-NOT: poot.attention
// CHECK: poot.log
// EXPLAIN: remark: attention declined: {{.*}} the log-sum-exp is taken over another exponent than the one it normalises
func.func @nm_torch_logsumexp_guard_of_another_max(
    %q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %four = poot.constant dense<4.0> : tensor<f32>
  %s1 = poot.div %s0, %four : tensor<1x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x6xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<6x6xi64>
  %fut = poot.compare gt, %t, %i : tensor<6x6xi64>, tensor<6x6xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %s = poot.select %fut, %ninf, %s1 : tensor<6x6xi1>, tensor<f32>, tensor<1x2x6x6xf32>
  %maxes = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %other = poot.reduce_max %s1 {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %abs = poot.abs %other : tensor<1x2x6x1xf32>
  %inf = poot.constant dense<0x7F800000> : tensor<f32>
  %isinf = poot.compare eq, %abs, %inf : tensor<1x2x6x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %msq = poot.select %isinf, %zero, %other : tensor<1x2x6x1xi1>, tensor<f32>, tensor<1x2x6x1xf32>
  %d = poot.sub %s, %maxes : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %l = poot.log %z : tensor<1x2x6x1xf32>
  %lse = poot.add %l, %msq : tensor<1x2x6x1xf32>, tensor<1x2x6x1xf32>
  %ls = poot.sub %s, %lse : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %p = poot.exp %ls : tensor<1x2x6x6xf32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x6x16xf32>
}
