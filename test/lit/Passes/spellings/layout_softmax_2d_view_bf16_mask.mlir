// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The 2-D softmax view in bf16 with GQA and an additive mask: repeat_kv by
// reshape/broadcast/reshape, scores scaled by a division by sqrt(d), the
// float mask [b, 1, q, k] added, then Softmax on the [b*h*q, k] view
// (keepdim reductions), upcast to f32 for the exp and back. GQA 4/2,
// D = 40, B = 2, Lq = 3, Lk = 7.

// CHECK-LABEL: func.func @layout_softmax_2d_view_bf16_mask
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x3x40xbf16>, %[[K:[^:]+]]: tensor<2x2x7x40xbf16>, %[[V:[^:]+]]: tensor<2x2x7x40xbf16>, %[[M:[^:]+]]: tensor<2x1x3x7xbf16>
// out = softmax((q . k) / sqrt(40) + mask) . v, query head h reads key head h / 2
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x7xbf16>) {n_rep = 2 : i64, scale = 0.158{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @layout_softmax_2d_view_bf16_mask(%q: tensor<2x4x3x40xbf16>, %k: tensor<2x2x7x40xbf16>,
                                            %v: tensor<2x2x7x40xbf16>, %mask: tensor<2x1x3x7xbf16>)
    -> tensor<2x4x3x40xbf16> {
  %k5 = poot.reshape %k : tensor<2x2x7x40xbf16> -> tensor<2x2x1x7x40xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 2, 7, 40>} : tensor<2x2x1x7x40xbf16>
  %kr = poot.reshape %kb : tensor<2x2x2x7x40xbf16> -> tensor<2x4x7x40xbf16>
  %v5 = poot.reshape %v : tensor<2x2x7x40xbf16> -> tensor<2x2x1x7x40xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 2, 7, 40>} : tensor<2x2x1x7x40xbf16>
  %vr = poot.reshape %vb : tensor<2x2x2x7x40xbf16> -> tensor<2x4x7x40xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x7x40xbf16>
  %s = poot.matmul %q, %kt : tensor<2x4x3x40xbf16>, tensor<2x4x40x7xbf16>
  %c = poot.constant dense<6.32455532> : tensor<bf16>
  %ss = poot.div %s, %c : tensor<2x4x3x7xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<2x4x3x7xbf16>, tensor<2x1x3x7xbf16>
  %s2 = poot.reshape %sm : tensor<2x4x3x7xbf16> -> tensor<24x7xbf16>
  %m = poot.reduce_max %s2 {axis = 1 : i64, keepdim} : tensor<24x7xbf16>
  %d = poot.sub %s2, %m : tensor<24x7xbf16>, tensor<24x1xbf16>
  %df = poot.convert %d : tensor<24x7xbf16> -> tensor<24x7xf32>
  %e = poot.exp %df : tensor<24x7xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<24x7xf32>
  %pf = poot.div %e, %z : tensor<24x7xf32>, tensor<24x1xf32>
  %p2 = poot.convert %pf : tensor<24x7xf32> -> tensor<24x7xbf16>
  %p = poot.reshape %p2 : tensor<24x7xbf16> -> tensor<2x4x3x7xbf16>
  %o = poot.matmul %p, %vr : tensor<2x4x3x7xbf16>, tensor<2x4x7x40xbf16>
  return %o : tensor<2x4x3x40xbf16>
}
