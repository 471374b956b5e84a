// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The tiled repeat as reshape/broadcast/reshape, the copies axis before the
// key heads ([B, 1, Hkv, L, D] broadcast to [B, n, Hkv, L, D]: query head h
// reads key head h % Hkv), under a causal ALiBi bias with one slope per
// query head, in bf16. Regrouped, query head h' = 2 kv + r is query head
// 2 r + kv, so the slopes are permuted the same way. GQA 4/2, D = 40,
// B = 1, L = 6.

// CHECK-LABEL: func.func @gqa_tiled_alibi_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x6x40xbf16>, %[[K:[^:]+]]: tensor<1x2x6x40xbf16>, %[[V:[^:]+]]: tensor<1x2x6x40xbf16>
// the regrouping [0, 2, 1, 3] is its own inverse
// CHECK: %[[P:.+]] = poot.constant dense<[0, 2, 1, 3]> : tensor<4xi32>
// CHECK: %[[QG:.+]] = poot.gather %[[Q]][%[[P]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QG]], %[[K]], %[[V]] {alibi_slopes = array<f64: 2.500000e-01, 1.562500e-02, 6.250000e-02, 3.906250e-03>, causal, n_rep = 2 : i64, scale = 0.158{{[0-9]+}} : f64}
// CHECK: %[[R:.+]] = poot.gather %[[O]][%[[P]]] {axis = 1 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[R]]
func.func @gqa_tiled_alibi_bf16(%q: tensor<1x4x6x40xbf16>, %k: tensor<1x2x6x40xbf16>,
                                %v: tensor<1x2x6x40xbf16>) -> tensor<1x4x6x40xbf16> {
  %k5 = poot.reshape %k : tensor<1x2x6x40xbf16> -> tensor<1x1x2x6x40xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 6, 40>} : tensor<1x1x2x6x40xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x6x40xbf16> -> tensor<1x4x6x40xbf16>
  %v5 = poot.reshape %v : tensor<1x2x6x40xbf16> -> tensor<1x1x2x6x40xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 6, 40>} : tensor<1x1x2x6x40xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x6x40xbf16> -> tensor<1x4x6x40xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x40xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x6x40xbf16>, tensor<1x4x40x6xbf16>
  %c = poot.constant dense<0.158113882> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x4x6x6xbf16>, tensor<bf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x6x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x6xi32>
  %rel = poot.sub %t, %i : tensor<1x1x1x6xi32>, tensor<1x1x6x1xi32>
  %relf = poot.convert %rel : tensor<1x1x6x6xi32> -> tensor<1x1x6x6xbf16>
  %slopes = poot.constant dense<[[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]]> : tensor<1x4x1x1xbf16>
  %bias = poot.mul %relf, %slopes : tensor<1x1x6x6xbf16>, tensor<1x4x1x1xbf16>
  %sb = poot.add %ss, %bias : tensor<1x4x6x6xbf16>, tensor<1x4x6x6xbf16>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x6xi32>, tensor<1x1x6x1xi32>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %sm = poot.select %hid, %ninf, %sb : tensor<1x1x6x6xi1>, tensor<bf16>, tensor<1x4x6x6xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x6x6xbf16>
  %d = poot.sub %sm, %m : tensor<1x4x6x6xbf16>, tensor<1x4x6x1xbf16>
  %e = poot.exp %d : tensor<1x4x6x6xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xbf16>
  %p = poot.div %e, %z : tensor<1x4x6x6xbf16>, tensor<1x4x6x1xbf16>
  %o = poot.matmul %p, %vr : tensor<1x4x6x6xbf16>, tensor<1x4x6x40xbf16>
  return %o : tensor<1x4x6x40xbf16>
}
