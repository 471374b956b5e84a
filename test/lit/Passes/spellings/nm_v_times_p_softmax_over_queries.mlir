// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet

// Near miss for P . V written as V . P: scores laid out key-major
// [b, h, k, q] (k^T . q), the softmax taken over the last axis, which here
// is the queries, then v [b, h, c, k] . p. Read with the probabilities on
// the left it is a softmax over the query axis: declined, runs unfused.

// CHECK-LABEL: func.func @nm_v_times_p_softmax_over_queries
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: softmax over axis
func.func @nm_v_times_p_softmax_over_queries(%q: tensor<1x4x32x8xf32>, %k: tensor<1x4x32x10xf32>,
                                             %v: tensor<1x4x32x10xf32>) -> tensor<1x4x32x8xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x32x10xf32>
  %w0 = poot.matmul %kt, %q : tensor<1x4x10x32xf32>, tensor<1x4x32x8xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %w = poot.mul %w0, %c : tensor<1x4x10x8xf32>, tensor<f32>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<1x4x10x8xf32>
  %d = poot.sub %w, %m : tensor<1x4x10x8xf32>, tensor<1x4x10x1xf32>
  %e = poot.exp %d : tensor<1x4x10x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x10x8xf32>
  %p = poot.div %e, %z : tensor<1x4x10x8xf32>, tensor<1x4x10x1xf32>
  %a = poot.matmul %v, %p : tensor<1x4x32x10xf32>, tensor<1x4x10x8xf32>
  return %a : tensor<1x4x32x8xf32>
}
