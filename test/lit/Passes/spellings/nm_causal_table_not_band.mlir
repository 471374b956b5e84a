// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: a tril table with one entry cleared (row 9 hides key 3), as a
// pruned or hand-edited buffer would have. Every entry is checked, so the
// table is no band and the slice at pos stays a tensor mask. D = 40.

// CHECK-LABEL: func.func @nm_causal_table_not_band
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x1x40xf32>, %[[K:[^:]+]]: tensor<1x2x16x40xf32>, %[[V:[^:]+]]: tensor<1x2x16x40xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[CM:.+]] = poot.dynamic_slice %{{.+}}[%{{.+}}, %{{.+}}, %[[POS]], %{{.+}}]
// CHECK: %[[M:.+]] = poot.select %[[CM]]
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x1x1x16xf32>) {n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, tensor mask{{$}}
func.func @nm_causal_table_not_band(%q: tensor<1x2x1x40xf32>, %k: tensor<1x2x16x40xf32>,
                                    %vr: tensor<1x2x16x40xf32>,
                                    %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<1x2x1x40xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, false, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %zero = poot.constant dense<0> : tensor<i32>
  %cm = poot.dynamic_slice %bias[%zero, %zero, %pos, %zero] {sizes = array<i64: 1, 1, 1, 16>} : tensor<1x1x16x16xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x16x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x40xf32>, tensor<1x2x40x16xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %w = poot.mul %s, %c : tensor<1x2x1x16xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %cm, %w, %ninf : tensor<1x1x1x16xi1>, tensor<1x2x1x16xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x16xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x16xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x16xf32>
  %p = poot.div %e, %z : tensor<1x2x1x16xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x2x1x16xf32>, tensor<1x2x16x40xf32>
  return %o : tensor<1x2x1x40xf32>
}
