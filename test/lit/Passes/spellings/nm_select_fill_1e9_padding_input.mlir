// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss of DistilBERT's masked_fill: a port that fills the padded keys
// with -1e9 instead of finfo.min. A score added to -1e9 does not round
// back to it (half an ulp of 1e9 is 32), so on a row the padding hides
// whole the graph averages v while softmax(s - 1e9) weights the scores:
// the select is no additive mask, and -inf would give 0/0 there. Must
// decline and run unfused. B = 4, H = 2, L = 3, D = 64.

// CHECK-LABEL: func.func @nm_select_fill_1e9_padding_input
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: finite mask fill -1e+09 with rows that may have no visible key (too small to absorb the scores)
func.func @nm_select_fill_1e9_padding_input(%q: tensor<4x2x3x64xf32>, %k: tensor<4x2x3x64xf32>,
                                            %v: tensor<4x2x3x64xf32>, %keep: tensor<4x1x1x3xi1>)
    -> tensor<4x2x3x64xf32> {
  %c = poot.constant dense<0.125> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<4x2x3x64xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x3x64xf32>
  %s = poot.matmul %qs, %kt : tensor<4x2x3x64xf32>, tensor<4x2x64x3xf32>
  %f = poot.constant dense<-1.0e+09> : tensor<f32>
  %sm = poot.select %keep, %s, %f : tensor<4x1x1x3xi1>, tensor<4x2x3x3xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<4x2x3x3xf32>
  %d = poot.sub %sm, %m : tensor<4x2x3x3xf32>, tensor<4x2x3x1xf32>
  %e = poot.exp %d : tensor<4x2x3x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x3x3xf32>
  %p = poot.div %e, %z : tensor<4x2x3x3xf32>, tensor<4x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<4x2x3x3xf32>, tensor<4x2x3x64xf32>
  return %o : tensor<4x2x3x64xf32>
}
