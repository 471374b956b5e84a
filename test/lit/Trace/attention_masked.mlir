// RUN: poot-trace --op=attention_masked | FileCheck %s
// RUN: poot-trace --op=attention_masked --softcap=30 --window=4 | FileCheck %s --check-prefix=CAP
// RUN: poot-trace --op=attention_masked --alibi --heads=4 --kv-heads=4 | FileCheck %s --check-prefix=ALIBI

// ops::attention_masked: decode over a fixed-capacity cache (B=1, Hq=4,
// Hkv=2, D=16, capacity 32): the cache writes, repeat_kv, the score chain in
// the order (q.k)*scale -> softcap -> + mask -> softmax -> .v.

// CHECK-LABEL: func.func @attention_masked(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x1x16xf32> {poot.name = "q"}
// CHECK-SAME: %[[K:[^:]+]]: tensor<1x2x1x16xf32> {poot.name = "k"}
// CHECK-SAME: %[[V:[^:]+]]: tensor<1x2x1x16xf32> {poot.name = "v"}
// CHECK-SAME: %[[KC:[^:]+]]: tensor<1x2x32x16xf32> {poot.name = "k_cache", poot.state = "k_cache"}
// CHECK-SAME: %[[VC:[^:]+]]: tensor<1x2x32x16xf32> {poot.name = "v_cache", poot.state = "v_cache"}
// CHECK-SAME: %[[POS:[^:]+]]: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 32>, poot.slot = "pos"}
// CHECK-SAME: -> (tensor<1x4x1x16xf32> {poot.name = "out"}, tensor<1x2x32x16xf32> {poot.name = "k_cache", poot.state = "k_cache"}, tensor<1x2x32x16xf32> {poot.name = "v_cache", poot.state = "v_cache"})

// k_cache[:, :, pos] = k; v_cache[:, :, pos] = v
// CHECK: %[[Z:.+]] = poot.constant dense<0> : tensor<i32>
// CHECK: %[[KW:.+]] = poot.dynamic_update_slice %[[KC]][%[[Z]], %[[Z]], %[[POS]], %[[Z]]], %[[K]]
// CHECK: %[[VW:.+]] = poot.dynamic_update_slice %[[VC]][%[[Z]], %[[Z]], %[[POS]], %[[Z]]], %[[V]]

// mask[j] = j > pos ? -inf : 0
// CHECK: %[[QPOS:.+]] = poot.reshape %[[POS]] : tensor<i32> -> tensor<1x1x1x1xi32>
// CHECK: %[[KPOS:.+]] = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
// CHECK: %[[HID:.+]] = poot.compare gt, %[[KPOS]], %[[QPOS]]
// CHECK: %[[NINF:.+]] = poot.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[NINFB:.+]] = poot.broadcast %[[NINF]] {shape = array<i64: 1, 1, 1, 32>}
// CHECK: %[[ZF:.+]] = poot.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[ZFB:.+]] = poot.broadcast %[[ZF]] {shape = array<i64: 1, 1, 1, 32>}
// CHECK: %[[MASK:.+]] = poot.select %[[HID]], %[[NINFB]], %[[ZFB]]

// k_exp = repeat_kv(k_cache, 2), v_exp = repeat_kv(v_cache, 2)
// CHECK: %[[K5:.+]] = poot.reshape %[[KW]] : tensor<1x2x32x16xf32> -> tensor<1x2x1x32x16xf32>
// CHECK: %[[KB:.+]] = poot.broadcast %[[K5]] {shape = array<i64: 1, 2, 2, 32, 16>}
// CHECK: %[[KEXP:.+]] = poot.reshape %[[KB]] : tensor<1x2x2x32x16xf32> -> tensor<1x4x32x16xf32>
// CHECK: %[[V5:.+]] = poot.reshape %[[VW]] : tensor<1x2x32x16xf32> -> tensor<1x2x1x32x16xf32>
// CHECK: %[[VB:.+]] = poot.broadcast %[[V5]] {shape = array<i64: 1, 2, 2, 32, 16>}
// CHECK: %[[VEXP:.+]] = poot.reshape %[[VB]] : tensor<1x2x2x32x16xf32> -> tensor<1x4x32x16xf32>

// s = (q . k_exp^T) * 1/sqrt(16)
// CHECK: %[[KT:.+]] = poot.transpose %[[KEXP]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[QK:.+]] = poot.matmul %[[Q]], %[[KT]] : tensor<1x4x1x16xf32>, tensor<1x4x16x32xf32>
// CHECK: %[[SC:.+]] = poot.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[SCB:.+]] = poot.broadcast %[[SC]] {shape = array<i64: 1, 4, 1, 32>}
// CHECK: %[[S:.+]] = poot.mul %[[QK]], %[[SCB]]

// s = s + mask
// CHECK: %[[SM:.+]] = poot.add %[[S]], %[[MASK]] : tensor<1x4x1x32xf32>, tensor<1x1x1x32xf32>

// p = exp(s - max(s)) / sum(exp(s - max(s)))
// CHECK: %[[M:.+]] = poot.reduce_max %[[SM]] {axis = 3 : i64, keepdim}
// CHECK: %[[X:.+]] = poot.sub %[[SM]], %[[M]]
// CHECK: %[[E:.+]] = poot.exp %[[X]]
// CHECK: %[[L:.+]] = poot.reduce_sum %[[E]] {axis = 3 : i64, keepdim}
// CHECK: %[[P:.+]] = poot.div %[[E]], %[[L]]

// out = p . v_exp
// CHECK: %[[OUT:.+]] = poot.matmul %[[P]], %[[VEXP]] : tensor<1x4x1x32xf32>, tensor<1x4x32x16xf32>
// CHECK: return %[[OUT]], %[[KW]], %[[VW]]

// hidden = j > pos or j <= pos - window
// CAP: %[[HID:.+]] = poot.compare gt
// CAP: %[[OLDEST:.+]] = poot.sub %{{.+}}, %{{.+}} : tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>
// CAP: %[[OLD:.+]] = poot.compare le, %{{.+}}, %[[OLDEST]]
// CAP: %[[ANY:.+]] = poot.or %[[HID]], %[[OLD]]
// CAP: %[[MASK:.+]] = poot.select %[[ANY]]
// s = 30 * tanh(s * scale / 30), then + mask
// CAP: %[[S:.+]] = poot.mul %{{.+}}, %{{.+}} : tensor<1x4x1x32xf32>, tensor<1x4x1x32xf32>
// CAP: poot.constant dense<3.000000e+01> : tensor<f32>
// CAP: %[[D:.+]] = poot.div %[[S]], %{{.+}}
// CAP: %[[T:.+]] = poot.tanh %[[D]]
// CAP: poot.constant dense<3.000000e+01> : tensor<f32>
// CAP: %[[C:.+]] = poot.mul %[[T]], %{{.+}}
// CAP: %[[SM:.+]] = poot.add %[[C]], %[[MASK]]
// CAP: poot.reduce_max %[[SM]]

// ALiBi: mask = causal + slope[h] * (j - pos), one row per head (Hm = Hq);
// with Hq == Hkv repeat_kv is skipped.
// ALIBI: %[[QPOS:.+]] = poot.reshape
// ALIBI: %[[CAUSAL:.+]] = poot.select
// ALIBI: %[[DIST:.+]] = poot.sub %{{.+}}, %[[QPOS]] : tensor<1x1x1x32xi32>, tensor<1x1x1x1xi32>
// ALIBI: %[[DISTF:.+]] = poot.convert %[[DIST]] : tensor<1x1x1x32xi32> -> tensor<1x1x1x32xf32>
// ALIBI: %[[SLOPES:.+]] = poot.constant dense<{{\[\[\[}}[2.500000e-01]], {{\[\[}}6.250000e-02]], {{\[\[}}1.562500e-02]], {{\[\[}}3.906250e-03]]]]> : tensor<1x4x1x1xf32>
// ALIBI: %[[BIAS:.+]] = poot.mul %[[DISTF]], %[[SLOPES]]
// ALIBI: %[[MASK:.+]] = poot.add %[[CAUSAL]], %[[BIAS]] : tensor<1x1x1x32xf32>, tensor<1x4x1x32xf32>
// ALIBI-NOT: poot.reshape
// ALIBI: %[[KT:.+]] = poot.transpose
// ALIBI: poot.add %{{.+}}, %[[MASK]] : tensor<1x4x1x32xf32>, tensor<1x4x1x32xf32>
