// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet

// Near miss: keys of batch 1 but values of batch 2 against queries of
// batch 2. Only keys and values that are both one shared row are taken:
// this one is declined (and runs unfused).

// CHECK-LABEL: func.func @nm_batch_broadcast_keys_only
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: attention declined: key/value batch 1/2 broadcast against query batch 2
func.func @nm_batch_broadcast_keys_only(%q: tensor<2x2x3x16xf32>, %k: tensor<1x2x5x16xf32>,
                                          %v: tensor<2x2x5x16xf32>) -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<1x2x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x3x5xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %d = poot.sub %ss, %m : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %e = poot.exp %d : tensor<2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x5xf32>, tensor<2x2x5x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
