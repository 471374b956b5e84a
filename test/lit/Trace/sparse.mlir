// RUN: poot-trace --op=sparse | FileCheck %s

// Sparse indexer: key scores relu(iq . ik^T) summed over the indexer heads,
// future keys at -inf, block score = max over each block of 4 keys, top 2
// blocks; visible = (selected block or the row's own block) and j <= pos;
// applied as an additive -inf mask before the softmax.

// CHECK-LABEL: func.func @sparse(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x1x16xf32> {poot.name = "q"}
// CHECK-SAME: %[[K:[^:]+]]: tensor<1x2x32x16xf32> {poot.name = "k"}
// CHECK-SAME: %[[V:[^:]+]]: tensor<1x2x32x16xf32> {poot.name = "v"}
// CHECK-SAME: %[[IQ:[^:]+]]: tensor<1x2x1x8xf32> {poot.name = "index_q"}
// CHECK-SAME: %[[IK:[^:]+]]: tensor<1x1x32x8xf32> {poot.name = "index_k"}
// CHECK-SAME: %[[POS:[^:]+]]: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 32>, poot.slot = "pos"}

// key score = sum_h relu(iq . ik^T), -inf past pos
// CHECK: %[[QPOS:.+]] = poot.reshape %[[POS]]
// CHECK: %[[IKT:.+]] = poot.transpose %[[IK]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[IS:.+]] = poot.matmul %[[IQ]], %[[IKT]] : tensor<1x2x1x8xf32>, tensor<1x1x8x32xf32>
// CHECK: %[[RELU:.+]] = poot.max %[[IS]], %{{.+}}
// CHECK: %[[KS:.+]] = poot.reduce_sum %[[RELU]] {axis = 1 : i64, keepdim}
// CHECK: %[[HID:.+]] = poot.compare gt, %{{.+}}, %[[QPOS]]
// CHECK: %[[KSM:.+]] = poot.select %[[HID]], %{{.+}}, %[[KS]]

// block score = max over 4 keys; the best 2 blocks
// CHECK: %[[BLK:.+]] = poot.reshape %[[KSM]] : tensor<1x1x1x32xf32> -> tensor<1x1x1x8x4xf32>
// CHECK: %[[BS:.+]] = poot.reduce_max %[[BLK]] {axis = 4 : i64}
// CHECK: %{{.+}}, %[[TOP:.+]] = poot.topk %[[BS]] {k = 2 : i64} : tensor<1x1x1x8xf32>

// selected[j] = any_k(top[k] == j / 4)
// CHECK: %[[KB:.+]] = poot.div %{{.+}}, %{{.+}} : tensor<1x1x1x32xi32>, tensor<1x1x1x32xi32>
// CHECK: %[[TOPC:.+]] = poot.reshape %[[TOP]] : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
// CHECK: %[[KBR:.+]] = poot.reshape %[[KB]] : tensor<1x1x1x32xi32> -> tensor<1x1x1x1x32xi32>
// CHECK: %[[HIT:.+]] = poot.compare eq, %[[TOPC]], %[[KBR]]
// CHECK: %[[HITI:.+]] = poot.convert %[[HIT]] : tensor<1x1x1x2x32xi1> -> tensor<1x1x1x2x32xi32>
// CHECK: %[[ANY:.+]] = poot.reduce_max %[[HITI]] {axis = 3 : i64}
// CHECK: %[[SEL:.+]] = poot.compare ne, %[[ANY]], %{{.+}}

// own[j] = j / 4 == pos / 4; visible = (selected or own) and not hidden
// CHECK: %[[QB:.+]] = poot.div %[[QPOS]], %{{.+}}
// CHECK: %[[OWN:.+]] = poot.compare eq, %[[KB]], %[[QB]]
// CHECK: %[[CAND:.+]] = poot.or %[[SEL]], %[[OWN]]
// CHECK: %[[PAST:.+]] = poot.not %[[HID]]
// CHECK: %[[VIS:.+]] = poot.and %[[CAND]], %[[PAST]]
// CHECK: %[[MASK:.+]] = poot.select %[[VIS]], %{{.+}}, %{{.+}} : tensor<1x1x1x32xi1>, tensor<1x1x1x32xf32>, tensor<1x1x1x32xf32>

// s = (q . repeat_kv(k)^T) * scale + mask -> softmax -> . v
// CHECK: %[[QK:.+]] = poot.matmul %[[Q]], %{{.+}} : tensor<1x4x1x16xf32>, tensor<1x4x16x32xf32>
// CHECK: %[[S:.+]] = poot.mul %[[QK]]
// CHECK: %[[SM:.+]] = poot.add %[[S]], %[[MASK]]
// CHECK: poot.reduce_max %[[SM]] {axis = 3 : i64, keepdim}
// CHECK: %[[OUT:.+]] = poot.matmul
// CHECK: return %[[OUT]]
