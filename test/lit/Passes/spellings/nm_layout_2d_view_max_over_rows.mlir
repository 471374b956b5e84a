// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss on the 2-D softmax view [b*h*q, k]: ReduceMax over axis 0 (a
// max per key column over all rows) subtracted from the scores, the sum
// over the keys. The reshape pair still moves up (the max is an input of
// the chain, computed from the old view), but the subtracted value varies
// along the keys: exp(x - m) / sum is no softmax of x. Declined; runs
// unfused. MHA, B = 1, H = 2, Lq = 3, Lk = 5, D = 16.

// CHECK-LABEL: func.func @nm_layout_2d_view_max_over_rows
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: softmax max over axis 0, expected the key axis 1{{$}}
func.func @nm_layout_2d_view_max_over_rows(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x5x16xf32>,
                                           %v: tensor<1x2x5x16xf32>) -> tensor<1x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x16xf32>, tensor<1x2x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x5xf32>, tensor<f32>
  %s2 = poot.reshape %ss : tensor<1x2x3x5xf32> -> tensor<6x5xf32>
  %m = poot.reduce_max %s2 {axis = 0 : i64, keepdim} : tensor<6x5xf32>
  %d = poot.sub %s2, %m : tensor<6x5xf32>, tensor<1x5xf32>
  %e = poot.exp %d : tensor<6x5xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<6x5xf32>
  %p2 = poot.div %e, %z : tensor<6x5xf32>, tensor<6x1xf32>
  %p = poot.reshape %p2 : tensor<6x5xf32> -> tensor<1x2x3x5xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x5xf32>, tensor<1x2x5x16xf32>
  return %o : tensor<1x2x3x16xf32>
}
