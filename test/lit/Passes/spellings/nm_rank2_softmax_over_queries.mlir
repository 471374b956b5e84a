// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet

// Near miss for single-head products of rank 2: q [S, D] against k and v
// [T, D] with the softmax over the query axis (axis 0 of the [S, T]
// scores), as slot attention normalises over the slots. The one-head view
// of P . V does not relabel a reduction over the queries, so it stays
// between the softmax and P . V: declined, runs unfused.

// CHECK-LABEL: func.func @nm_rank2_softmax_over_queries
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.reshape' at line {{[0-9]+}} between the softmax and P . V
func.func @nm_rank2_softmax_over_queries(%q: tensor<5x16xf32>, %k: tensor<8x16xf32>,
                                         %v: tensor<8x16xf32>) -> tensor<5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 1, 0>} : tensor<8x16xf32>
  %s = poot.matmul %q, %kt : tensor<5x16xf32>, tensor<16x8xf32>
  %m = poot.reduce_max %s {axis = 0 : i64, keepdim} : tensor<5x8xf32>
  %d = poot.sub %s, %m : tensor<5x8xf32>, tensor<1x8xf32>
  %e = poot.exp %d : tensor<5x8xf32>
  %z = poot.reduce_sum %e {axis = 0 : i64, keepdim} : tensor<5x8xf32>
  %p = poot.div %e, %z : tensor<5x8xf32>, tensor<1x8xf32>
  %o = poot.matmul %p, %v : tensor<5x8xf32>, tensor<8x16xf32>
  return %o : tensor<5x16xf32>
}
