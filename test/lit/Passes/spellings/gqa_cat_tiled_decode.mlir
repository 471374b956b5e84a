// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Heads repeated as whole copies, torch.cat([k, k, k, k], dim=1) (what
// k.repeat(1, 4, 1, 1) computes): query head h reads key head h % 2, the
// tiled order, not h / n_rep. Still a grouping: the query heads are
// regrouped by key head (h' = 4 kv + r is query head 2 r + kv) for the
// fused op, which reads each key head once, and its output is put back.
// Decode at pos; GQA 8/2, D = 40, B = 2, Lk = 12.

// CHECK-LABEL: func.func @gqa_cat_tiled_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x1x40xf32>, %[[K:[^:]+]]: tensor<2x2x12x40xf32>, %[[V:[^:]+]]: tensor<2x2x12x40xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-DAG: %[[BACK:.+]] = poot.constant dense<[0, 4, 1, 5, 2, 6, 3, 7]> : tensor<8xi32>
// CHECK-DAG: %[[REGROUP:.+]] = poot.constant dense<[0, 2, 4, 6, 1, 3, 5, 7]> : tensor<8xi32>
// CHECK-NOT: poot.concat
// CHECK: %[[QG:.+]] = poot.gather %[[Q]][%[[REGROUP]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QG]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK: %[[R:.+]] = poot.gather %[[O]][%[[BACK]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[R]]
func.func @gqa_cat_tiled_decode(%q: tensor<2x8x1x40xf32>, %k: tensor<2x2x12x40xf32>,
                                %v: tensor<2x2x12x40xf32>,
                                %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 12>})
    -> tensor<2x8x1x40xf32> {
  %kr = poot.concat %k, %k, %k, %k {axis = 1 : i64} : tensor<2x2x12x40xf32>, tensor<2x2x12x40xf32>, tensor<2x2x12x40xf32>, tensor<2x2x12x40xf32>
  %vr = poot.concat %v, %v, %v, %v {axis = 1 : i64} : tensor<2x2x12x40xf32>, tensor<2x2x12x40xf32>, tensor<2x2x12x40xf32>, tensor<2x2x12x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x12x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x1x40xf32>, tensor<2x8x40x12xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x1x12xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x12xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x12xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<1x1x1x12xi1>, tensor<f32>, tensor<2x8x1x12xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x8x1x12xf32>
  %d = poot.sub %sm, %m : tensor<2x8x1x12xf32>, tensor<2x8x1x1xf32>
  %e = poot.exp %d : tensor<2x8x1x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x1x12xf32>
  %p = poot.div %e, %z : tensor<2x8x1x12xf32>, tensor<2x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x1x12xf32>, tensor<2x8x12x40xf32>
  return %o : tensor<2x8x1x40xf32>
}
