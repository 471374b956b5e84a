// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A head gather by a constant map that is a grouping in no standard order,
// [2, 0, 1, 2, 0, 1] (each of the 3 key heads read by 2 query heads), with
// a per-head float mask [1, Hq, Lq, Lk]: the query heads are regrouped by
// key head, [1, 4, 2, 5, 0, 3], and the mask's heads with them. GQA 6/3,
// D = 96, B = 2, Lq = 3, Lk = 8.

// CHECK-LABEL: func.func @gqa_gather_permuted_head_mask
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x6x3x96xf32>, %[[K:[^:]+]]: tensor<2x3x8x96xf32>, %[[V:[^:]+]]: tensor<2x3x8x96xf32>, %[[M:[^:]+]]: tensor<1x6x3x8xf32>
// query head h' = 2 kv + r is query head [1, 4, 2, 5, 0, 3][h']
// CHECK-DAG: %[[BACK:.+]] = poot.constant dense<[4, 0, 2, 5, 1, 3]> : tensor<6xi32>
// CHECK-DAG: %[[REGROUP:.+]] = poot.constant dense<[1, 4, 2, 5, 0, 3]> : tensor<6xi32>
// CHECK: %[[QG:.+]] = poot.gather %[[Q]][%[[REGROUP]]] {axis = 1 : i64}
// CHECK: %[[MG:.+]] = poot.gather %[[M]][%[[REGROUP]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QG]], %[[K]], %[[V]] mask(%[[MG]] : tensor<1x6x3x8xf32>) {n_rep = 2 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK: %[[R:.+]] = poot.gather %[[O]][%[[BACK]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[R]]
func.func @gqa_gather_permuted_head_mask(%q: tensor<2x6x3x96xf32>, %k: tensor<2x3x8x96xf32>,
                                         %v: tensor<2x3x8x96xf32>, %mask: tensor<1x6x3x8xf32>)
    -> tensor<2x6x3x96xf32> {
  %heads = poot.constant dense<[2, 0, 1, 2, 0, 1]> : tensor<6xi32>
  %kr = poot.gather %k[%heads] {axis = 1 : i64} : tensor<2x3x8x96xf32>, tensor<6xi32>
  %vr = poot.gather %v[%heads] {axis = 1 : i64} : tensor<2x3x8x96xf32>, tensor<6xi32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x6x8x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x6x3x96xf32>, tensor<2x6x96x8xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x6x3x8xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<2x6x3x8xf32>, tensor<1x6x3x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x6x3x8xf32>
  %d = poot.sub %sm, %m : tensor<2x6x3x8xf32>, tensor<2x6x3x1xf32>
  %e = poot.exp %d : tensor<2x6x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x6x3x8xf32>
  %p = poot.div %e, %z : tensor<2x6x3x8xf32>, tensor<2x6x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x6x3x8xf32>, tensor<2x6x8x96xf32>
  return %o : tensor<2x6x3x96xf32>
}
