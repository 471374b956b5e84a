// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss of the absorbing select fill: the padding select with
// finfo.min sits outside a -inf causal mask, select(keep, s + causal,
// finfo.min). On a row the padding hides whole the graph scores every key
// finfo.min (the select drops the -inf of the causal mask) and averages all
// of v, where s + causal + select(keep, 0, finfo.min) keeps the future keys
// at -inf and averages the causal ones only. Must decline and run unfused.
// B = 4, H = 2, L = 3, D = 64.

// CHECK-LABEL: func.func @nm_absorbing_fill_over_causal_neg_inf
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: finite mask fill -3.40282e+38 with rows that may have no visible key (a mask is applied inside the select)
func.func @nm_absorbing_fill_over_causal_neg_inf(%q: tensor<4x2x3x64xf32>, %k: tensor<4x2x3x64xf32>,
                                                 %v: tensor<4x2x3x64xf32>, %keep: tensor<4x1x1x3xi1>)
    -> tensor<4x2x3x64xf32> {
  %c = poot.constant dense<0.125> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<4x2x3x64xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x3x64xf32>
  %s = poot.matmul %qs, %kt : tensor<4x2x3x64xf32>, tensor<4x2x64x3xf32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x3x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x3xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x3xi32>, tensor<1x1x3x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %cm = poot.select %hid, %ninf, %zero : tensor<1x1x3x3xi1>, tensor<f32>, tensor<f32>
  %sc = poot.add %s, %cm : tensor<4x2x3x3xf32>, tensor<1x1x3x3xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %keep, %sc, %min : tensor<4x1x1x3xi1>, tensor<4x2x3x3xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<4x2x3x3xf32>
  %d = poot.sub %sm, %m : tensor<4x2x3x3xf32>, tensor<4x2x3x1xf32>
  %e = poot.exp %d : tensor<4x2x3x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x3x3xf32>
  %p = poot.div %e, %z : tensor<4x2x3x3xf32>, tensor<4x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<4x2x3x3xf32>, tensor<4x2x3x64xf32>
  return %o : tensor<4x2x3x64xf32>
}
