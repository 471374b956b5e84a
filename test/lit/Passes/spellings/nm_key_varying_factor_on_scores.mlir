// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet

// Near miss for a per-head temperature moved onto q: the factor here is a
// [H, 1, Lk] tensor, one weight per head and key, which no factor on q can
// stand for (it multiplies different keys' scores differently). It stays
// on the scores, and a tensor factor there is no scale: declined.

// CHECK-LABEL: func.func @nm_key_varying_factor_on_scores
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: {{.*}}a factor that is not a constant
func.func @nm_key_varying_factor_on_scores(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>,
                                           %v: tensor<1x2x6x16xf32>, %t: tensor<2x1x6xf32>) -> tensor<1x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %s = poot.mul %s0, %t : tensor<1x2x6x6xf32>, tensor<2x1x6xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %p = poot.div %e, %z : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x6x16xf32>
}
