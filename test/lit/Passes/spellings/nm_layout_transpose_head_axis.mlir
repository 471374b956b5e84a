// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: the scores [b, h, q, k] are permuted to [b, k, q, h], putting
// the key axis in the batch and the heads last, and the softmax runs over
// the last axis (over heads, one distribution per key and query) before the
// probabilities are permuted back. Moved up to the matmul, the softmax is
// over axis 1: no attention. Declined; runs unfused. B = 1, H = 3, Lq = 4,
// Lk = 5, D = 16.

// CHECK-LABEL: func.func @nm_layout_transpose_head_axis
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: softmax over axis 1, expected the key axis 3{{$}}
func.func @nm_layout_transpose_head_axis(%q: tensor<1x3x4x16xf32>, %k: tensor<1x3x5x16xf32>,
                                         %v: tensor<1x3x5x16xf32>) -> tensor<1x3x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x3x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x3x4x16xf32>, tensor<1x3x16x5xf32>
  %st = poot.transpose %s {perm = array<i64: 0, 3, 2, 1>} : tensor<1x3x4x5xf32>
  %m = poot.reduce_max %st {axis = 3 : i64, keepdim} : tensor<1x5x4x3xf32>
  %d = poot.sub %st, %m : tensor<1x5x4x3xf32>, tensor<1x5x4x1xf32>
  %e = poot.exp %d : tensor<1x5x4x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x5x4x3xf32>
  %p = poot.div %e, %z : tensor<1x5x4x3xf32>, tensor<1x5x4x1xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 3, 2, 1>} : tensor<1x5x4x3xf32>
  %o = poot.matmul %pt, %v : tensor<1x3x4x5xf32>, tensor<1x3x5x16xf32>
  return %o : tensor<1x3x4x16xf32>
}
