// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A sliding-window table (Mistral-style, window 4: row r sees columns
// r - 3 .. r) as a constant bool buffer, sliced at the decode position and
// applied with where(table, w, -inf). Checked entry by entry to be the band
// -3 <= t - row <= 0: causal with window 4 from pos. Multi-query (one key
// head broadcast by the matmul), D = 40, Lk = 16.

// CHECK-LABEL: func.func @causal_window_table_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x1x40xf32>, %[[K:[^:]+]]: tensor<1x1x16x40xf32>, %[[V:[^:]+]]: tensor<1x1x16x40xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-NOT: poot.{{dynamic_slice|select}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.158113{{[0-9]+}} : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_window_table_decode(%q: tensor<1x4x1x40xf32>, %k: tensor<1x1x16x40xf32>,
                                      %vr: tensor<1x1x16x40xf32>,
                                      %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<1x4x1x40xf32> {
  %tab = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [false, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [false, false, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [false, false, false, true, true, true, true, false, false, false, false, false, false, false, false, false], [false, false, false, false, true, true, true, true, false, false, false, false, false, false, false, false], [false, false, false, false, false, true, true, true, true, false, false, false, false, false, false, false], [false, false, false, false, false, false, true, true, true, true, false, false, false, false, false, false], [false, false, false, false, false, false, false, true, true, true, true, false, false, false, false, false], [false, false, false, false, false, false, false, false, true, true, true, true, false, false, false, false], [false, false, false, false, false, false, false, false, false, true, true, true, true, false, false, false], [false, false, false, false, false, false, false, false, false, false, true, true, true, true, false, false], [false, false, false, false, false, false, false, false, false, false, false, true, true, true, true, false], [false, false, false, false, false, false, false, false, false, false, false, false, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %zero = poot.constant dense<0> : tensor<i32>
  %cm = poot.dynamic_slice %tab[%zero, %zero, %pos, %zero] {sizes = array<i64: 1, 1, 1, 16>} : tensor<1x1x16x16xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x16x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x40xf32>, tensor<1x1x40x16xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %w = poot.mul %s, %c : tensor<1x4x1x16xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %cm, %w, %ninf : tensor<1x1x1x16xi1>, tensor<1x4x1x16xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x1x16xf32>
  %d = poot.sub %sm, %m : tensor<1x4x1x16xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x16xf32>
  %p = poot.div %e, %z : tensor<1x4x1x16xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x1x16xf32>, tensor<1x1x16x40xf32>
  return %o : tensor<1x4x1x40xf32>
}
