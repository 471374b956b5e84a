// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keys and values of batch 1 against queries of batch 2 (two query sets
// over one shared context), causal with a BLOOM-style ALiBi bias of one
// slope a head, in bf16. Nothing depends on the batch row, so the rows
// become query heads: head h of row n is head 2 h + n, each slope written
// for both of its rows, n_rep 2. MHA 4 heads, D = 32, L = 6.

// CHECK-LABEL: func.func @batch_shared_prefix_alibi_causal_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x6x32xbf16>, %[[K:[^:]+]]: tensor<1x4x6x32xbf16>, %[[V:[^:]+]]: tensor<1x4x6x32xbf16>
// CHECK-NOT: poot.broadcast
// CHECK: %[[QT:.+]] = poot.transpose %[[Q]] {perm = array<i64: 1, 0, 2, 3>}
// CHECK: %[[QF:.+]] = poot.reshape %[[QT]] : tensor<4x2x6x32xbf16> -> tensor<1x8x6x32xbf16>
// CHECK: %[[O:.+]] = poot.attention %[[QF]], %[[K]], %[[V]] {alibi_slopes = array<f64: 2.500000e-01, 2.500000e-01, 6.250000e-02, 6.250000e-02, 1.562500e-02, 1.562500e-02, 3.906250e-03, 3.906250e-03>, causal, n_rep = 2 : i64, scale = 0.176{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
func.func @batch_shared_prefix_alibi_causal_bf16(%q: tensor<2x4x6x32xbf16>, %k: tensor<1x4x6x32xbf16>,
                                                 %v: tensor<1x4x6x32xbf16>) -> tensor<2x4x6x32xbf16> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x32xbf16>
  %s = poot.matmul %q, %kt : tensor<2x4x6x32xbf16>, tensor<1x4x32x6xbf16>
  %c = poot.constant dense<0.176776695> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<2x4x6x6xbf16>, tensor<bf16>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x6x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x6xi32>
  %rel = poot.sub %t, %i : tensor<1x1x1x6xi32>, tensor<1x1x6x1xi32>
  %relf = poot.convert %rel : tensor<1x1x6x6xi32> -> tensor<1x1x6x6xbf16>
  %slopes = poot.constant dense<[[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]]> : tensor<1x4x1x1xbf16>
  %bias = poot.mul %relf, %slopes : tensor<1x1x6x6xbf16>, tensor<1x4x1x1xbf16>
  %sb = poot.add %ss, %bias : tensor<2x4x6x6xbf16>, tensor<1x4x6x6xbf16>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x6xi32>, tensor<1x1x6x1xi32>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %sm = poot.select %hid, %ninf, %sb : tensor<1x1x6x6xi1>, tensor<bf16>, tensor<2x4x6x6xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x6x6xbf16>
  %d = poot.sub %sm, %m : tensor<2x4x6x6xbf16>, tensor<2x4x6x1xbf16>
  %e = poot.exp %d : tensor<2x4x6x6xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xbf16>
  %p = poot.div %e, %z : tensor<2x4x6x6xbf16>, tensor<2x4x6x1xbf16>
  %o = poot.matmul %p, %v : tensor<2x4x6x6xbf16>, tensor<1x4x6x32xbf16>
  return %o : tensor<2x4x6x32xbf16>
}
