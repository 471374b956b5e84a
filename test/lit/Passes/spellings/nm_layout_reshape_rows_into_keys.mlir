// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: a 2-D softmax view that mixes the key axis with the query
// axis: the scores [b, h, q, k] are reshaped to [b*h*q/2, 2*k], so each
// softmax row holds the keys of two query rows, then reshaped back. Each
// pair of rows is normalised together: no attention. The reshape does not
// keep the key axis, so neither it nor the one back moves. Declined; runs
// unfused. MHA, B = 1, H = 2, Lq = 4, Lk = 6, D = 16.

// CHECK-LABEL: func.func @nm_layout_reshape_rows_into_keys
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_layout_reshape_rows_into_keys(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x6x16xf32>,
                                            %v: tensor<1x2x6x16xf32>) -> tensor<1x2x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x6xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x6xf32>, tensor<f32>
  %s2 = poot.reshape %ss : tensor<1x2x4x6xf32> -> tensor<4x12xf32>
  %m = poot.reduce_max %s2 {axis = 1 : i64, keepdim} : tensor<4x12xf32>
  %d = poot.sub %s2, %m : tensor<4x12xf32>, tensor<4x1xf32>
  %e = poot.exp %d : tensor<4x12xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<4x12xf32>
  %p2 = poot.div %e, %z : tensor<4x12xf32>, tensor<4x1xf32>
// EXPLAIN: remark: attention declined: 'poot.reshape' at line [[#@LINE+1]] between the softmax and P . V: poot-canonicalize moves such an op to the first matmul only where it relabels the score axes and nothing else reads the chain{{$}}
  %p = poot.reshape %p2 : tensor<4x12xf32> -> tensor<1x2x4x6xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x4x16xf32>
}
