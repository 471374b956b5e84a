// RUN: poot-trace --op=paged --batch=2 | FileCheck %s

// Paged cache: new rows scattered into the pools [S=64, Hkv=2, D=16] through
// the write map, the per-row view gathered through the read map [B, cap] and
// transposed to [B, Hkv, cap, D]; the causal mask per row from pos [B].

// CHECK-LABEL: func.func @paged(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x1x16xf32> {poot.name = "q"}
// CHECK-SAME: %[[K:[^:]+]]: tensor<2x2x1x16xf32> {poot.name = "k"}
// CHECK-SAME: %[[V:[^:]+]]: tensor<2x2x1x16xf32> {poot.name = "v"}
// CHECK-SAME: %[[KP:[^:]+]]: tensor<64x2x16xf32> {poot.name = "k_pool", poot.state = "k_pool"}
// CHECK-SAME: %[[VP:[^:]+]]: tensor<64x2x16xf32> {poot.name = "v_pool", poot.state = "v_pool"}
// CHECK-SAME: %[[POS:[^:]+]]: tensor<2xi32> {poot.name = "pos", poot.range = array<i64: 0, 32>, poot.slot = "pos"}
// CHECK-SAME: %[[WM:[^:]+]]: tensor<2xi32> {poot.name = "write_map", poot.range = array<i64: -1, 64>, poot.slot = "write_map"}
// CHECK-SAME: %[[RM:[^:]+]]: tensor<2x32xi32> {poot.name = "slot_map", poot.range = array<i64: 0, 64>, poot.slot = "slot_map"}

// k_pool[write[n]] = k rows in token order (-1 writes nothing)
// CHECK: %[[KT:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[KR:.+]] = poot.reshape %[[KT]] : tensor<2x1x2x16xf32> -> tensor<2x2x16xf32>
// CHECK: %[[KW:.+]] = poot.scatter_update %[[KP]][%[[WM]]], %[[KR]]
// CHECK: %[[VT:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[VR:.+]] = poot.reshape %[[VT]]
// CHECK: %[[VW:.+]] = poot.scatter_update %[[VP]][%[[WM]]], %[[VR]]

// k_view[b, h, t] = k_pool[read[b, t], h]
// CHECK: %[[KG:.+]] = poot.gather %[[KW]][%[[RM]]] {axis = 0 : i64} : tensor<64x2x16xf32>, tensor<2x32xi32>
// CHECK: %[[KVIEW:.+]] = poot.transpose %[[KG]] {perm = array<i64: 0, 2, 1, 3>} : tensor<2x32x2x16xf32>
// CHECK: %[[VG:.+]] = poot.gather %[[VW]][%[[RM]]] {axis = 0 : i64}
// CHECK: %[[VVIEW:.+]] = poot.transpose %[[VG]] {perm = array<i64: 0, 2, 1, 3>}

// mask[b, j] = j > pos[b] ? -inf : 0
// CHECK: %[[QPOS:.+]] = poot.reshape %[[POS]] : tensor<2xi32> -> tensor<2x1x1x1xi32>
// CHECK: %[[J:.+]] = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
// CHECK: %[[HID:.+]] = poot.compare gt, %[[J]], %[[QPOS]]
// CHECK: %[[MASK:.+]] = poot.select %[[HID]]

// attention over the gathered view
// CHECK: poot.reshape %[[KVIEW]] : tensor<2x2x32x16xf32> -> tensor<2x2x1x32x16xf32>
// CHECK: poot.reshape %[[VVIEW]]
// CHECK: %[[QK:.+]] = poot.matmul %[[Q]], %{{.+}} : tensor<2x4x1x16xf32>, tensor<2x4x16x32xf32>
// CHECK: %[[S:.+]] = poot.mul %[[QK]]
// CHECK: poot.add %[[S]], %[[MASK]] : tensor<2x4x1x32xf32>, tensor<2x1x1x32xf32>
// CHECK: %[[OUT:.+]] = poot.matmul
// CHECK: return %[[OUT]], %[[KW]], %[[VW]]
