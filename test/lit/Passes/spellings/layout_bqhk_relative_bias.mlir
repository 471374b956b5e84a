// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// T5-style position bias laid out for [b, q, h, k] scores: an unscaled
// einsum layer whose scores are permuted to [b, q, h, k] and get a bias
// [1, q, h, k] (one per head) added, softmax over the last axis, permuted
// back for P . V. Moved up, the bias is permuted with the scores to
// [1, h, q, k] and fuses as a tensor mask. MHA, D = 96 (no scale),
// B = 2, H = 3, Lq = 4, Lk = 5.

// CHECK-LABEL: func.func @layout_bqhk_relative_bias
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x4x96xf32>, %[[K:[^:]+]]: tensor<2x3x5x96xf32>, %[[V:[^:]+]]: tensor<2x3x5x96xf32>, %[[B:[^:]+]]: tensor<1x4x3x5xf32>
// CHECK: %[[BH:.+]] = poot.transpose %[[B]] {perm = array<i64: 0, 2, 1, 3>}
// out = softmax(q . k + bias) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[BH]] : tensor<1x3x4x5xf32>) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @layout_bqhk_relative_bias(%q: tensor<2x3x4x96xf32>, %k: tensor<2x3x5x96xf32>,
                                     %v: tensor<2x3x5x96xf32>, %bias: tensor<1x4x3x5xf32>)
    -> tensor<2x3x4x96xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x5x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x3x4x96xf32>, tensor<2x3x96x5xf32>
  %sq = poot.transpose %s {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf32>
  %sb = poot.add %sq, %bias : tensor<2x4x3x5xf32>, tensor<1x4x3x5xf32>
  %m = poot.reduce_max %sb {axis = 3 : i64, keepdim} : tensor<2x4x3x5xf32>
  %d = poot.sub %sb, %m : tensor<2x4x3x5xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x5xf32>
  %p = poot.div %e, %z : tensor<2x4x3x5xf32>, tensor<2x4x3x1xf32>
  %ph = poot.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x5xf32>
  %o = poot.matmul %ph, %v : tensor<2x3x4x5xf32>, tensor<2x3x5x96xf32>
  return %o : tensor<2x3x4x96xf32>
}
