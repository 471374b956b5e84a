// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.

// Near miss: the stabiliser is the max of the scores under another mask
// than the one the exp sees (a padding mask for the max, a causal one for
// the exp). A row the padding mask hides entirely has max -inf, and
// exp(x + inf) is inf where the causal softmax is finite: no shift proven
// finite, so it is declined and runs unfused.
// MHA, B = 2, H = 1, L = 4, D = 16.

// CHECK-LABEL: func.func @nm_max_other_mask
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_max_other_mask(%q: tensor<2x1x4x16xf32>, %k: tensor<2x1x4x16xf32>,
                             %v: tensor<2x1x4x16xf32>, %keep: tensor<2x1x1x4xi1>)
    -> tensor<2x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x4x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x1x4x16xf32>, tensor<2x1x16x4xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x1x4x4xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<4x4xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<4x4xi64>
  %causal = poot.compare le, %t, %i : tensor<4x4xi64>, tensor<4x4xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %causal, %s, %ninf : tensor<4x4xi1>, tensor<2x1x4x4xf32>, tensor<f32>
  %y = poot.select %keep, %s, %ninf : tensor<2x1x1x4xi1>, tensor<2x1x4x4xf32>, tensor<f32>
  // EXPLAIN: remark: attention declined: 'poot.reduce_max' at line [[#@LINE+1]] takes the max over a value that is not on the score chain the softmax normalises: the value 'poot.sub' at line [[#@LINE+2]] subtracts is not proven finite on every row with a visible key{{$}}
  %m = poot.reduce_max %y {axis = 3 : i64, keepdim} : tensor<2x1x4x4xf32>
  %d = poot.sub %x, %m : tensor<2x1x4x4xf32>, tensor<2x1x4x1xf32>
  %e = poot.exp %d : tensor<2x1x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x1x4x4xf32>
  %p = poot.div %e, %z : tensor<2x1x4x4xf32>, tensor<2x1x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x1x4x4xf32>, tensor<2x1x4x16xf32>
  return %o : tensor<2x1x4x16xf32>
}
