// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: the scores [b, h, q, k] are permuted to [b, h, k, q] and the
// softmax runs over the last axis there, which is now the query axis, before
// the probabilities are permuted back for P . V. Moved up to the matmul,
// the permutes cancel and the softmax is over axis 2 (the queries): no
// attention. Declined; runs unfused. MHA, B = 1, H = 2, Lq = 4, Lk = 6,
// D = 16.

// CHECK-LABEL: func.func @nm_layout_transpose_query_axis
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: softmax over axis 2, expected the key axis 3{{$}}
func.func @nm_layout_transpose_query_axis(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x6x16xf32>,
                                          %v: tensor<1x2x6x16xf32>) -> tensor<1x2x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x6xf32>
  %st = poot.transpose %s {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x6xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %st, %c : tensor<1x2x6x4xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x6x4xf32>
  %d = poot.sub %ss, %m : tensor<1x2x6x4xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x4xf32>
  %p = poot.div %e, %z : tensor<1x2x6x4xf32>, tensor<1x2x6x1xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x4xf32>
  %o = poot.matmul %pt, %v : tensor<1x2x4x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x4x16xf32>
}
