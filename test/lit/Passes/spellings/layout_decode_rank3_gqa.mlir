// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Decode with the unit query axis squeezed out: q [b, h, d] is unsqueezed
// for the matmul, the scores [b, h, 1, k] are squeezed to [b, h, k], scaled
// and masked there (t > pos selected with -inf, built rank 3), the softmax
// runs over the last axis of the rank-3 scores, and the probabilities are
// unsqueezed again for P . V. repeat_kv by reshape/broadcast/reshape.
// GQA 8/2, D = 64, B = 2, Lk = 12.

// CHECK-LABEL: func.func @layout_decode_rank3_gqa
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x64xf32>, %[[K:[^:]+]]: tensor<2x2x12x64xf32>, %[[V:[^:]+]]: tensor<2x2x12x64xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[Q4:.+]] = poot.reshape %[[Q]] : tensor<2x8x64xf32> -> tensor<2x8x1x64xf32>
// out = softmax((q . k) * 64^-1/2, keys t <= pos) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<2x8x1x64xf32> -> tensor<2x8x64xf32>
// CHECK: return %[[R]]
func.func @layout_decode_rank3_gqa(%q: tensor<2x8x64xf32>, %k: tensor<2x2x12x64xf32>,
                                   %v: tensor<2x2x12x64xf32>,
                                   %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 11>})
    -> tensor<2x8x64xf32> {
  %k5 = poot.reshape %k : tensor<2x2x12x64xf32> -> tensor<2x2x1x12x64xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 12, 64>} : tensor<2x2x1x12x64xf32>
  %kr = poot.reshape %kb : tensor<2x2x4x12x64xf32> -> tensor<2x8x12x64xf32>
  %v5 = poot.reshape %v : tensor<2x2x12x64xf32> -> tensor<2x2x1x12x64xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 12, 64>} : tensor<2x2x1x12x64xf32>
  %vr = poot.reshape %vb : tensor<2x2x4x12x64xf32> -> tensor<2x8x12x64xf32>
  %q4 = poot.reshape %q : tensor<2x8x64xf32> -> tensor<2x8x1x64xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x12x64xf32>
  %s4 = poot.matmul %q4, %kt : tensor<2x8x1x64xf32>, tensor<2x8x64x12xf32>
  %s = poot.reshape %s4 : tensor<2x8x1x12xf32> -> tensor<2x8x12xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x12xf32>, tensor<f32>
  %p3 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1xi32>
  %t = poot.iota {dim = 2 : i64} : tensor<1x1x12xi32>
  %hid = poot.compare gt, %t, %p3 : tensor<1x1x12xi32>, tensor<1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<1x1x12xi1>, tensor<f32>, tensor<2x8x12xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x8x12xf32>
  %d = poot.sub %sm, %m : tensor<2x8x12xf32>, tensor<2x8x1xf32>
  %e = poot.exp %d : tensor<2x8x12xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x8x12xf32>
  %p = poot.div %e, %z : tensor<2x8x12xf32>, tensor<2x8x1xf32>
  %p4 = poot.reshape %p : tensor<2x8x12xf32> -> tensor<2x8x1x12xf32>
  %o4 = poot.matmul %p4, %vr : tensor<2x8x1x12xf32>, tensor<2x8x12x64xf32>
  %o = poot.reshape %o4 : tensor<2x8x1x64xf32> -> tensor<2x8x64xf32>
  return %o : tensor<2x8x64xf32>
}
