// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, an einsum port that keeps the scores in the [b, q, h, k] layout
// (einsum('bqhd,bkhd->bqhk')) but then calls softmax(axis=2) as if they were
// [b, h, q, k]: the normalisation runs over the heads. Not attention; must
// decline. B = 1, L = 5, H = 4, D = 32.

// CHECK-LABEL: func.func @nm_bqhk_softmax_over_heads
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: softmax over axis 1, expected the key axis 3
func.func @nm_bqhk_softmax_over_heads(%q: tensor<1x5x4x32xf32>, %k: tensor<1x5x4x32xf32>,
                                      %v: tensor<1x5x4x32xf32>) -> tensor<1x5x4x32xf32> {
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x32xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x4x32xf32>
  %sh = poot.matmul %qh, %kt : tensor<1x4x5x32xf32>, tensor<1x4x32x5xf32>
  %s = poot.transpose %sh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x5xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x5x4x5xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 2 : i64, keepdim} : tensor<1x5x4x5xf32>
  %d = poot.sub %ss, %m : tensor<1x5x4x5xf32>, tensor<1x5x1x5xf32>
  %e = poot.exp %d : tensor<1x5x4x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x5x4x5xf32>
  %p = poot.div %e, %z : tensor<1x5x4x5xf32>, tensor<1x5x1x5xf32>
  %ph = poot.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x5xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x32xf32>
  %oh = poot.matmul %ph, %vh : tensor<1x4x5x5xf32>, tensor<1x4x5x32xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x32xf32>
  return %o : tensor<1x5x4x32xf32>
}
