// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: the scores [b, h, q, k] go through the 2-D softmax view
// [b*h*q, k] and come back reshaped (not permuted) to [b, q, h, k], as if
// the view had been taken in that order, then multiply v [b, q, k, d]:
// row r of the view lands at (h, q) = (r / H, r % H) read as (q', h'),
// which mixes heads and query rows. The softmax itself is over the keys and
// moves up, but the reshape left on the scores is no relabelling of the
// attention's axes. Declined; runs unfused. B = 1, H = 2, Lq = 3, Lk = 5,
// D = 16.

// CHECK-LABEL: func.func @nm_layout_reshape_swaps_heads_rows
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.reshape' between the first matmul and the softmax{{$}}
func.func @nm_layout_reshape_swaps_heads_rows(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x5x16xf32>,
                                              %v: tensor<1x3x5x16xf32>) -> tensor<1x3x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x16xf32>, tensor<1x2x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x5xf32>, tensor<f32>
  %s2 = poot.reshape %ss : tensor<1x2x3x5xf32> -> tensor<6x5xf32>
  %m = poot.reduce_max %s2 {axis = 1 : i64, keepdim} : tensor<6x5xf32>
  %d = poot.sub %s2, %m : tensor<6x5xf32>, tensor<6x1xf32>
  %e = poot.exp %d : tensor<6x5xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<6x5xf32>
  %p2 = poot.div %e, %z : tensor<6x5xf32>, tensor<6x1xf32>
  %p = poot.reshape %p2 : tensor<6x5xf32> -> tensor<1x3x2x5xf32>
  %o = poot.matmul %p, %v : tensor<1x3x2x5xf32>, tensor<1x3x5x16xf32>
  return %o : tensor<1x3x2x16xf32>
}
