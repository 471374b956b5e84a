// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, a chunked (online-softmax) PyTorch loop caught mid-way: the
// exp subtracts the running max carried in from the previous chunk, an
// input [B, H, Lq, 1], not a max of these scores. Nothing proves it finite
// on every row (an -inf or +inf there gives NaN where the softmax is
// finite), so it is declined and runs unfused.
// MHA, B = 1, H = 2, Lq = 3, Lk = 4, D = 16.

// CHECK-LABEL: func.func @nm_running_max
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_running_max(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x4x16xf32>,
                          %v: tensor<1x2x4x16xf32>, %mprev: tensor<1x2x3x1xf32>)
    -> tensor<1x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x4xf32>, tensor<f32>
  // EXPLAIN: remark: attention declined: 'poot.sub' at line [[#@LINE+1]] subtracts an input, not a max of the scores: a shift must be finite on every row with a visible key{{$}}
  %d = poot.sub %ss, %mprev : tensor<1x2x3x4xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x4xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x3x16xf32>
}
