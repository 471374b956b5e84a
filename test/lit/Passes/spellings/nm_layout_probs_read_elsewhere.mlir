// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: scores in the [b, q, h, k] layout whose probabilities are
// also returned in that layout (output_attentions). The permute back before
// P . V cannot move up: the returned weights need the chain in its own
// layout, so relabelling it would change a second output. The permute
// stays between the softmax and P . V and the matcher names it. Declined;
// both outputs run unfused. MHA, B = 1, H = 2, L = 4, D = 16.

// CHECK-LABEL: func.func @nm_layout_probs_read_elsewhere
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_layout_probs_read_elsewhere(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>,
                                          %v: tensor<1x2x4x16xf32>)
    -> (tensor<1x2x4x16xf32>, tensor<1x4x2x4xf32>) {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %sq = poot.transpose %s {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %sq, %c : tensor<1x4x2x4xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x2x4xf32>
  %d = poot.sub %ss, %m : tensor<1x4x2x4xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x4xf32>
  %p = poot.div %e, %z : tensor<1x4x2x4xf32>, tensor<1x4x2x1xf32>
  // EXPLAIN: remark: attention declined: 'poot.transpose' at line [[#@LINE+1]] between the softmax and P . V: poot-canonicalize moves such an op to the first matmul only where it relabels the score axes and nothing else reads the chain{{$}}
  %ph = poot.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32>
  %o = poot.matmul %ph, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o, %p : tensor<1x2x4x16xf32>, tensor<1x4x2x4xf32>
}
