// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss for the batch-axis merge: rank-5 scores [B, N, H, Lq, Lk] over
// plain batch axes, but the softmax runs over the query axis (axis 3), not
// the keys. The merge relabels only reductions over the last axis, so the
// chain is left at rank 5 and the attention declines: a softmax over the
// queries is no attention. B = 1, N = 2, H = 2, Lq = Lk = 4, D = 8.
// CHECK-LABEL: func.func @nm_layout_rank5_batch_merge_softmax_over_queries_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: softmax over axis 3, expected the key axis 4{{$}}
func.func @nm_layout_rank5_batch_merge_softmax_over_queries_f32(%q: tensor<1x2x2x4x8xf32>, %k: tensor<1x2x2x4x8xf32>,
    %v: tensor<1x2x2x4x8xf32>) -> tensor<1x2x2x4x8xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x2x4x8xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x2x4x8xf32>, tensor<1x2x2x8x4xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x2x4x4xf32>
  %d = poot.sub %s, %m : tensor<1x2x2x4x4xf32>, tensor<1x2x2x1x4xf32>
  %e = poot.exp %d : tensor<1x2x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x2x4x4xf32>, tensor<1x2x2x1x4xf32>
  %o = poot.matmul %p, %v : tensor<1x2x2x4x4xf32>, tensor<1x2x2x4x8xf32>
  return %o : tensor<1x2x2x4x8xf32>
}
