// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A head gather in the [B, L, H, D] layout before the head transpose, its
// index computed in the graph as h - (h / 2) * 2 (h % 2: the tiled order
// of k.repeat(1, 1, 3, 1)), in bf16. The gather moves below the transpose
// and reads as the map h -> h % 2, a grouping: the query heads are
// regrouped ([0, 2, 4, 1, 3, 5]) and the keys read once. Causal prefill;
// GQA 6/2, D = 96, B = 1, L = 5.

// CHECK-LABEL: func.func @layout_gqa_gather_iota_tiled_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x5x6x96xbf16>, %[[K:[^:]+]]: tensor<1x5x2x96xbf16>, %[[V:[^:]+]]: tensor<1x5x2x96xbf16>
// CHECK-DAG: %[[BACK:.+]] = poot.constant dense<[0, 3, 1, 4, 2, 5]> : tensor<6xi32>
// CHECK-DAG: %[[REGROUP:.+]] = poot.constant dense<[0, 2, 4, 1, 3, 5]> : tensor<6xi32>
// CHECK-DAG: %[[QH:.+]] = poot.transpose %[[Q]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[KH:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x96xbf16>
// CHECK-DAG: %[[VH:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x96xbf16>
// CHECK: %[[QG:.+]] = poot.gather %[[QH]][%[[REGROUP]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QG]], %[[KH]], %[[VH]] {causal, n_rep = 3 : i64, scale = 0.102{{[0-9]+}} : f64} : tensor<1x6x5x96xbf16>, tensor<1x2x5x96xbf16>, tensor<1x2x5x96xbf16>
// CHECK: %[[R:.+]] = poot.gather %[[O]][%[[BACK]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[R]]
func.func @layout_gqa_gather_iota_tiled_bf16(%q: tensor<1x5x6x96xbf16>, %k: tensor<1x5x2x96xbf16>,
                                             %v: tensor<1x5x2x96xbf16>) -> tensor<1x6x5x96xbf16> {
  %h = poot.iota {dim = 0 : i64} : tensor<6xi32>
  %two = poot.constant dense<2> : tensor<i32>
  %hd = poot.div %h, %two : tensor<6xi32>, tensor<i32>
  %hm = poot.mul %hd, %two : tensor<6xi32>, tensor<i32>
  %heads = poot.sub %h, %hm : tensor<6xi32>, tensor<6xi32>
  %kr = poot.gather %k[%heads] {axis = 2 : i64} : tensor<1x5x2x96xbf16>, tensor<6xi32>
  %vr = poot.gather %v[%heads] {axis = 2 : i64} : tensor<1x5x2x96xbf16>, tensor<6xi32>
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x6x96xbf16>
  %kh = poot.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x6x96xbf16>
  %vh = poot.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x6x96xbf16>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x6x5x96xbf16>
  %s = poot.matmul %qh, %kt : tensor<1x6x5x96xbf16>, tensor<1x6x96x5xbf16>
  %c = poot.constant dense<0.102062072> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x6x5x5xbf16>, tensor<bf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x5xi32>, tensor<1x1x5x1xi32>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %sm = poot.select %hid, %ninf, %ss : tensor<1x1x5x5xi1>, tensor<bf16>, tensor<1x6x5x5xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x6x5x5xbf16>
  %d = poot.sub %sm, %m : tensor<1x6x5x5xbf16>, tensor<1x6x5x1xbf16>
  %e = poot.exp %d : tensor<1x6x5x5xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x5x5xbf16>
  %p = poot.div %e, %z : tensor<1x6x5x5xbf16>, tensor<1x6x5x1xbf16>
  %o = poot.matmul %p, %vh : tensor<1x6x5x5xbf16>, tensor<1x6x5x96xbf16>
  return %o : tensor<1x6x5x96xbf16>
}
