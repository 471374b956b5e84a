// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A Keras-style einsum layer in bf16 with GQA: q [B, Lq, H, D] scaled and
// permuted to heads-first, keys and values [B, Hkv, Lk, D] repeated by
// reshape/broadcast/reshape, the scores permuted to the [b, q, h, k] layout,
// an additive padding mask [B, 1, 1, Lk] laid out for that layout, softmax
// over the last axis, the probabilities permuted back to [b, h, q, k].
// GQA 8/2, D = 96, B = 2, Lq = 3, Lk = 10.

// CHECK-LABEL: func.func @layout_bqhk_keras_gqa_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x8x96xbf16>, %[[K:[^:]+]]: tensor<2x2x10x96xbf16>, %[[V:[^:]+]]: tensor<2x2x10x96xbf16>, %[[M:[^:]+]]: tensor<2x1x1x10xbf16>
// out = softmax((q . k) * 96^-1/2 + mask) . v, query head h reads key head h / 4
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK-DAG: %[[QH:.+]] = poot.transpose %[[Q]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[M3:.+]] = poot.broadcast %[[M]] {shape = array<i64: 2, 1, 3, 10>}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QH]], %[[K]], %[[V]] mask(%[[M3]] : tensor<2x1x3x10xbf16>)
// CHECK-SAME: {n_rep = 4 : i64, scale = 0.102{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
func.func @layout_bqhk_keras_gqa_bf16(%q: tensor<2x3x8x96xbf16>, %k: tensor<2x2x10x96xbf16>,
                                      %v: tensor<2x2x10x96xbf16>, %mask: tensor<2x1x1x10xbf16>)
    -> tensor<2x3x8x96xbf16> {
  %k5 = poot.reshape %k : tensor<2x2x10x96xbf16> -> tensor<2x2x1x10x96xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 10, 96>} : tensor<2x2x1x10x96xbf16>
  %kr = poot.reshape %kb : tensor<2x2x4x10x96xbf16> -> tensor<2x8x10x96xbf16>
  %v5 = poot.reshape %v : tensor<2x2x10x96xbf16> -> tensor<2x2x1x10x96xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 10, 96>} : tensor<2x2x1x10x96xbf16>
  %vr = poot.reshape %vb : tensor<2x2x4x10x96xbf16> -> tensor<2x8x10x96xbf16>
  %c = poot.constant dense<0.102062072> : tensor<bf16>
  %qs = poot.mul %q, %c : tensor<2x3x8x96xbf16>, tensor<bf16>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x96xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x10x96xbf16>
  %s = poot.matmul %qh, %kt : tensor<2x8x3x96xbf16>, tensor<2x8x96x10xbf16>
  %sq = poot.transpose %s {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x10xbf16>
  %sm = poot.add %sq, %mask : tensor<2x3x8x10xbf16>, tensor<2x1x1x10xbf16>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x3x8x10xbf16>
  %d = poot.sub %sm, %m : tensor<2x3x8x10xbf16>, tensor<2x3x8x1xbf16>
  %e = poot.exp %d : tensor<2x3x8x10xbf16>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x3x8x10xbf16>
  %p = poot.div %e, %z : tensor<2x3x8x10xbf16>, tensor<2x3x8x1xbf16>
  %ph = poot.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x8x10xbf16>
  %oh = poot.matmul %ph, %vr : tensor<2x8x3x10xbf16>, tensor<2x8x10x96xbf16>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x3x96xbf16>
  return %o : tensor<2x3x8x96xbf16>
}
