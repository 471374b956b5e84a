// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF eager in bf16, a chunk of two new tokens at pos: the causal mask is
// where(t > pos + i, finfo(bf16).min, 0) in bf16, added to bf16 scores.
// s + min stays at or below -3.38e38 in bf16, so exp of it less the row max
// is exactly 0, and with pos declared inside [0, Lk - 1) every row keeps
// its diagonal key. GQA 4/2, D = 32, Lk = 12.

// CHECK-LABEL: func.func @hf_eager_finfo_min_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x2x32xbf16>, %[[K:[^:]+]]: tensor<1x2x12x32xbf16>, %[[V:[^:]+]]: tensor<1x2x12x32xbf16>, %[[POS:[^:]+]]: tensor<i32>
// out = softmax((q . k) * 32^-1/2, keys t <= pos + i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 2 : i64, scale = 0.17675{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @hf_eager_finfo_min_bf16(%q: tensor<1x4x2x32xbf16>, %k: tensor<1x2x12x32xbf16>,
                                   %v: tensor<1x2x12x32xbf16>,
                                   %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 11>})
    -> tensor<1x4x2x32xbf16> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x2x1xi32>
  %qpos = poot.add %p4, %i : tensor<1x1x1x1xi32>, tensor<1x1x2x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x12xi32>
  %hid = poot.compare gt, %t, %qpos : tensor<1x1x1x12xi32>, tensor<1x1x2x1xi32>
  %min = poot.constant dense<-3.38953139E+38> : tensor<1x1x2x12xbf16>
  %zero = poot.constant dense<0.0> : tensor<1x1x2x12xbf16>
  %mask = poot.select %hid, %min, %zero : tensor<1x1x2x12xi1>, tensor<1x1x2x12xbf16>, tensor<1x1x2x12xbf16>
  %k5 = poot.reshape %k : tensor<1x2x12x32xbf16> -> tensor<1x2x1x12x32xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 12, 32>} : tensor<1x2x1x12x32xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x12x32xbf16> -> tensor<1x4x12x32xbf16>
  %v5 = poot.reshape %v : tensor<1x2x12x32xbf16> -> tensor<1x2x1x12x32xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 12, 32>} : tensor<1x2x1x12x32xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x12x32xbf16> -> tensor<1x4x12x32xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x12x32xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x2x32xbf16>, tensor<1x4x32x12xbf16>
  %c = poot.constant dense<0.176776695> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x4x2x12xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<1x4x2x12xbf16>, tensor<1x1x2x12xbf16>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<1x4x2x12xbf16>
  %d = poot.sub %sm, %m : tensor<1x4x2x12xbf16>, tensor<1x4x2x1xbf16>
  %e = poot.exp %d : tensor<1x4x2x12xbf16>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<1x4x2x12xbf16>
  %p = poot.div %e, %z : tensor<1x4x2x12xbf16>, tensor<1x4x2x1xbf16>
  %o = poot.matmul %p, %vr : tensor<1x4x2x12xbf16>, tensor<1x4x12x32xbf16>
  return %o : tensor<1x4x2x32xbf16>
}
