// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: scores permuted to the [b, q, h, k] layout and softmaxed over
// the keys, but then multiplied as they stand by a value laid out
// [b, q, k, d]: the product runs over (b, q) batches with the heads as rows,
// so each query row reads values of its own, not one value per key. The
// permute cannot move (nothing after the softmax undoes it) and stays
// between the first matmul and the softmax. Declined; runs unfused.
// B = 1, H = 2, L = 4, D = 16.

// CHECK-LABEL: func.func @nm_layout_bqhk_not_transposed_back
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.transpose' between the first matmul and the softmax{{$}}
func.func @nm_layout_bqhk_not_transposed_back(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>,
                                              %v: tensor<1x4x4x16xf32>) -> tensor<1x4x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %sq = poot.transpose %s {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32>
  %m = poot.reduce_max %sq {axis = 3 : i64, keepdim} : tensor<1x4x2x4xf32>
  %d = poot.sub %sq, %m : tensor<1x4x2x4xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x4xf32>
  %p = poot.div %e, %z : tensor<1x4x2x4xf32>, tensor<1x4x2x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x2x4xf32>, tensor<1x4x4x16xf32>
  return %o : tensor<1x4x2x16xf32>
}
