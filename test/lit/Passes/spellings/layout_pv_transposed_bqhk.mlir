// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Two layout spellings at once, the output in [b, q, h, d]: the scores in
// the [b, q, h, k] layout with the softmax over the last axis, then
// out[b, q, h, :] written as (V^T . P^T) permuted straight to [b, q, h, d]
// (one transpose that swaps the matrix dims and permutes the batch).
// Sliding window of 3 keys (t <= i, i - t < 3) by iotas. MHA, D = 40,
// B = 1, H = 2, L = 6.

// CHECK-LABEL: func.func @layout_pv_transposed_bqhk
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x6x40xf32>, %[[K:[^:]+]]: tensor<1x2x6x40xf32>, %[[V:[^:]+]]: tensor<1x2x6x40xf32>
// out = softmax((q . k) * 40^-1/2, keys i - 3 < t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64, window = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: return %[[R]]
func.func @layout_pv_transposed_bqhk(%q: tensor<1x2x6x40xf32>, %k: tensor<1x2x6x40xf32>,
                                     %v: tensor<1x2x6x40xf32>) -> tensor<1x6x2x40xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x6x40xf32>, tensor<1x2x40x6xf32>
  %sq = poot.transpose %s {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x6xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %sq, %c : tensor<1x6x2x6xf32>, tensor<f32>
  %row = poot.iota {dim = 1 : i64} : tensor<1x6x1x6xi32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x6x1x6xi32>
  %past = poot.compare le, %col, %row : tensor<1x6x1x6xi32>, tensor<1x6x1x6xi32>
  %dist = poot.sub %row, %col : tensor<1x6x1x6xi32>, tensor<1x6x1x6xi32>
  %w = poot.constant dense<3> : tensor<i32>
  %near = poot.compare lt, %dist, %w : tensor<1x6x1x6xi32>, tensor<i32>
  %keep = poot.and %past, %near : tensor<1x6x1x6xi1>, tensor<1x6x1x6xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %ss, %ninf : tensor<1x6x1x6xi1>, tensor<1x6x2x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x6x2x6xf32>
  %d = poot.sub %sm, %m : tensor<1x6x2x6xf32>, tensor<1x6x2x1xf32>
  %e = poot.exp %d : tensor<1x6x2x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x2x6xf32>
  %p = poot.div %e, %z : tensor<1x6x2x6xf32>, tensor<1x6x2x1xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 2, 3, 1>} : tensor<1x6x2x6xf32>
  %vt = poot.transpose %v {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x40xf32>
  %ot = poot.matmul %vt, %pt : tensor<1x2x40x6xf32>, tensor<1x2x6x6xf32>
  %o = poot.transpose %ot {perm = array<i64: 0, 3, 1, 2>} : tensor<1x2x40x6xf32>
  return %o : tensor<1x6x2x40xf32>
}
