// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// GPT-BigCode-style multi-query decode in bf16 with heads in the batch:
// one key/value head per sequence, [b, 1, Lk, D], broadcast over the heads
// and flattened to [b*h, Lk, D]; q [b*h, 1, D]. bmm(q, k^T) is scaled and
// viewed as [b, h, 1, k] for a causal select at pos (t > pos gets -inf), the
// softmax runs there, and the probabilities are viewed back for bmm.
// B = 2, H = 4, Lk = 10, D = 40.

// CHECK-LABEL: func.func @layout_bmm_mqa_bf16_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<8x1x40xbf16>, %[[K:[^:]+]]: tensor<2x1x10x40xbf16>, %[[V:[^:]+]]: tensor<2x1x10x40xbf16>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[Q4:.+]] = poot.reshape %[[Q]] : tensor<8x1x40xbf16> -> tensor<2x4x1x40xbf16>
// out = softmax((q . k) * 40^-1/2, keys t <= pos) . v, every head reading key head 0
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.158{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<2x4x1x40xbf16> -> tensor<8x1x40xbf16>
// CHECK: return %[[R]]
func.func @layout_bmm_mqa_bf16_decode(%q: tensor<8x1x40xbf16>, %k: tensor<2x1x10x40xbf16>,
                                      %v: tensor<2x1x10x40xbf16>,
                                      %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 9>})
    -> tensor<8x1x40xbf16> {
  %kb = poot.broadcast %k {shape = array<i64: 2, 4, 10, 40>} : tensor<2x1x10x40xbf16>
  %k3 = poot.reshape %kb : tensor<2x4x10x40xbf16> -> tensor<8x10x40xbf16>
  %vb = poot.broadcast %v {shape = array<i64: 2, 4, 10, 40>} : tensor<2x1x10x40xbf16>
  %v3 = poot.reshape %vb : tensor<2x4x10x40xbf16> -> tensor<8x10x40xbf16>
  %kt = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<8x10x40xbf16>
  %s = poot.matmul %q, %kt : tensor<8x1x40xbf16>, tensor<8x40x10xbf16>
  %c = poot.constant dense<0.158113882> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<8x1x10xbf16>, tensor<bf16>
  %s4 = poot.reshape %ss : tensor<8x1x10xbf16> -> tensor<2x4x1x10xbf16>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x10xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x10xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %sm = poot.select %hid, %ninf, %s4 : tensor<1x1x1x10xi1>, tensor<bf16>, tensor<2x4x1x10xbf16>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x1x10xbf16>
  %d = poot.sub %sm, %m : tensor<2x4x1x10xbf16>, tensor<2x4x1x1xbf16>
  %e = poot.exp %d : tensor<2x4x1x10xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x1x10xbf16>
  %p = poot.div %e, %z : tensor<2x4x1x10xbf16>, tensor<2x4x1x1xbf16>
  %p3 = poot.reshape %p : tensor<2x4x1x10xbf16> -> tensor<8x1x10xbf16>
  %o = poot.matmul %p3, %v3 : tensor<8x1x10xbf16>, tensor<8x10x40xbf16>
  return %o : tensor<8x1x40xbf16>
}
