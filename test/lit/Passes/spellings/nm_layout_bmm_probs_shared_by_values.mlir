// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: one head of probabilities [1, 1, q, k], viewed as [1, q, k]
// for bmm, multiplies a value with heads in the batch [h, k, d]: bmm
// broadcasts the probabilities over the value's batch. The view back cannot
// be lifted past P . V (the value's batch has no place in the
// probabilities' batch dims), and one query/key head against h value heads
// is no attention the fused op computes. Declined; runs unfused. H = 3,
// Lq = 2, Lk = 5, D = 16.

// CHECK-LABEL: func.func @nm_layout_bmm_probs_shared_by_values
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_layout_bmm_probs_shared_by_values(%q: tensor<1x1x2x16xf32>, %k: tensor<1x1x5x16xf32>,
                                                %v: tensor<3x5x16xf32>) -> tensor<3x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x1x2x16xf32>, tensor<1x1x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x1x2x5xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x1x2x5xf32>
  %d = poot.sub %ss, %m : tensor<1x1x2x5xf32>, tensor<1x1x2x1xf32>
  %e = poot.exp %d : tensor<1x1x2x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x2x5xf32>
  %p = poot.div %e, %z : tensor<1x1x2x5xf32>, tensor<1x1x2x1xf32>
  // EXPLAIN: remark: attention declined: 'poot.reshape' at line [[#@LINE+1]] between the softmax and P . V: poot-canonicalize moves such an op to the first matmul only where it relabels the score axes and nothing else reads the chain{{$}}
  %p3 = poot.reshape %p : tensor<1x1x2x5xf32> -> tensor<1x2x5xf32>
  %o = poot.matmul %p3, %v : tensor<1x2x5xf32>, tensor<3x5x16xf32>
  return %o : tensor<3x2x16xf32>
}
