// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// torch.repeat_interleave(k, 3, dim=2) on [B, L, Hkv, D] before the head
// transpose, exported as a gather with the index computed in the graph
// (arange(Hq) // n_rep), in bf16; causal prefill from iotas. GQA 6/2,
// D = 40, B = 1, L = 8.

// CHECK-LABEL: func.func @layout_gqa_repeat_interleave_blhd_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x6x40xbf16>, %[[K:[^:]+]]: tensor<1x8x2x40xbf16>, %[[V:[^:]+]]: tensor<1x8x2x40xbf16>
// CHECK-DAG: %[[QH:.+]] = poot.transpose %[[Q]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[KH:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x40xbf16>
// CHECK-DAG: %[[VH:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x40xbf16>
// CHECK-NOT: poot.gather
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QH]], %[[KH]], %[[VH]] {causal, n_rep = 3 : i64, scale = 0.158{{[0-9]+}} : f64} : tensor<1x6x8x40xbf16>, tensor<1x2x8x40xbf16>, tensor<1x2x8x40xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @layout_gqa_repeat_interleave_blhd_bf16(%q: tensor<1x8x6x40xbf16>, %k: tensor<1x8x2x40xbf16>,
                                                  %v: tensor<1x8x2x40xbf16>)
    -> tensor<1x6x8x40xbf16> {
  %h = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %n = poot.constant dense<3> : tensor<i64>
  %heads = poot.div %h, %n : tensor<6xi64>, tensor<i64>
  %kr = poot.gather %k[%heads] {axis = 2 : i64} : tensor<1x8x2x40xbf16>, tensor<6xi64>
  %vr = poot.gather %v[%heads] {axis = 2 : i64} : tensor<1x8x2x40xbf16>, tensor<6xi64>
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x6x40xbf16>
  %kh = poot.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x6x40xbf16>
  %vh = poot.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x6x40xbf16>
  %s = poot.matmul %qh, %kh : tensor<1x6x8x40xbf16>, tensor<1x6x40x8xbf16>
  %c = poot.constant dense<0.158113882> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x6x8x8xbf16>, tensor<bf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x8x8xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x8x8xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x8x8xi32>, tensor<1x1x8x8xi32>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %sm = poot.select %hid, %ninf, %ss : tensor<1x1x8x8xi1>, tensor<bf16>, tensor<1x6x8x8xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x6x8x8xbf16>
  %d = poot.sub %sm, %m : tensor<1x6x8x8xbf16>, tensor<1x6x8x1xbf16>
  %e = poot.exp %d : tensor<1x6x8x8xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x8x8xbf16>
  %p = poot.div %e, %z : tensor<1x6x8x8xbf16>, tensor<1x6x8x1xbf16>
  %o = poot.matmul %p, %vh : tensor<1x6x8x8xbf16>, tensor<1x6x8x40xbf16>
  return %o : tensor<1x6x8x40xbf16>
}
