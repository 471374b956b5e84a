// RUN: poot-trace --op=attention_prefill | FileCheck %s
// RUN: poot-trace --op=attention_prefill --dtype=bf16 | FileCheck %s --check-prefix=BF16

// ops::attention_prefill: every query row of an 8-token prompt against the
// prompt (B=1, Hq=4, Hkv=2, D=16), causal mask from two iotas.

// CHECK-LABEL: func.func @attention_prefill(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x8x16xf32> {poot.name = "q"}
// CHECK-SAME: %[[K:[^:]+]]: tensor<1x2x8x16xf32> {poot.name = "k"}
// CHECK-SAME: %[[V:[^:]+]]: tensor<1x2x8x16xf32> {poot.name = "v"}

// mask[i, j] = j > i ? -inf : 0
// CHECK: %[[I:.+]] = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
// CHECK: %[[J:.+]] = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
// CHECK: %[[HID:.+]] = poot.compare gt, %[[J]], %[[I]] : tensor<1x1x1x8xi32>, tensor<1x1x8x1xi32>
// CHECK: %[[MASK:.+]] = poot.select %[[HID]], %{{.+}}, %{{.+}} : tensor<1x1x8x8xi1>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32>

// k_exp = repeat_kv(k, 2), v_exp = repeat_kv(v, 2)
// CHECK: %[[K5:.+]] = poot.reshape %[[K]] : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
// CHECK: %[[KB:.+]] = poot.broadcast %[[K5]] {shape = array<i64: 1, 2, 2, 8, 16>}
// CHECK: %[[KEXP:.+]] = poot.reshape %[[KB]] : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK: %[[V5:.+]] = poot.reshape %[[V]]
// CHECK: %[[VB:.+]] = poot.broadcast %[[V5]]
// CHECK: %[[VEXP:.+]] = poot.reshape %[[VB]]

// s = (q . k_exp^T) * scale + mask
// CHECK: %[[KT:.+]] = poot.transpose %[[KEXP]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[QK:.+]] = poot.matmul %[[Q]], %[[KT]] : tensor<1x4x8x16xf32>, tensor<1x4x16x8xf32>
// CHECK: %[[S:.+]] = poot.mul %[[QK]], %{{.+}} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
// CHECK: %[[SM:.+]] = poot.add %[[S]], %[[MASK]] : tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>

// p = softmax(s); out = p . v_exp
// CHECK: %[[M:.+]] = poot.reduce_max %[[SM]] {axis = 3 : i64, keepdim}
// CHECK: %[[X:.+]] = poot.sub %[[SM]], %[[M]]
// CHECK: %[[E:.+]] = poot.exp %[[X]]
// CHECK: %[[L:.+]] = poot.reduce_sum %[[E]] {axis = 3 : i64, keepdim}
// CHECK: %[[P:.+]] = poot.div %[[E]], %[[L]]
// CHECK: %[[OUT:.+]] = poot.matmul %[[P]], %[[VEXP]]
// CHECK: return %[[OUT]]

// bf16 storage: the scores and the mask stay bf16, the softmax runs in f32
// and the probabilities go back to bf16 for the value matmul.
// BF16: %[[SM:.+]] = poot.add %{{.+}}, %{{.+}} : tensor<1x4x8x8xbf16>, tensor<1x1x8x8xbf16>
// BF16: %[[W:.+]] = poot.convert %[[SM]] : tensor<1x4x8x8xbf16> -> tensor<1x4x8x8xf32>
// BF16: poot.reduce_max %[[W]]
// BF16: %[[P:.+]] = poot.div
// BF16: %[[PN:.+]] = poot.convert %[[P]] : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xbf16>
// BF16: poot.matmul %[[PN]], %{{.+}} : tensor<1x4x8x8xbf16>, tensor<1x4x8x16xbf16>
