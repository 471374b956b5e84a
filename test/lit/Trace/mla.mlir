// RUN: poot-trace --op=mla | FileCheck %s

// MLA split key: k = concat(k_nope [B,H,L,16], broadcast(k_pe [B,1,L,8])),
// key width 24, value width 16; causal prefill over the 8 tokens.

// CHECK-LABEL: func.func @mla(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x8x24xf32> {poot.name = "q"}
// CHECK-SAME: %[[KN:[^:]+]]: tensor<1x4x8x16xf32> {poot.name = "k_nope"}
// CHECK-SAME: %[[KPE:[^:]+]]: tensor<1x1x8x8xf32> {poot.name = "k_pe"}
// CHECK-SAME: %[[V:[^:]+]]: tensor<1x4x8x16xf32> {poot.name = "v"}

// k = [k_nope | k_pe broadcast over heads]
// CHECK: %[[PE:.+]] = poot.broadcast %[[KPE]] {shape = array<i64: 1, 4, 8, 8>} : tensor<1x1x8x8xf32>
// CHECK: %[[KEY:.+]] = poot.concat %[[KN]], %[[PE]] {axis = 3 : i64} : tensor<1x4x8x16xf32>, tensor<1x4x8x8xf32>

// s = (q . k^T) / sqrt(24) + mask; no repeat_kv (n_rep 1)
// CHECK: %[[MASK:.+]] = poot.select
// CHECK-NOT: poot.reshape
// CHECK: %[[KT:.+]] = poot.transpose %[[KEY]] {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x24xf32>
// CHECK: %[[QK:.+]] = poot.matmul %[[Q]], %[[KT]] : tensor<1x4x8x24xf32>, tensor<1x4x24x8xf32>
// CHECK: poot.constant dense<0.204124153> : tensor<f32>
// CHECK: %[[S:.+]] = poot.mul %[[QK]]
// CHECK: %[[SM:.+]] = poot.add %[[S]], %[[MASK]]
// CHECK: poot.reduce_max %[[SM]]
// CHECK: %[[P:.+]] = poot.div

// out [1, 4, 8, 16]: the value width, not the key width
// CHECK: %[[OUT:.+]] = poot.matmul %[[P]], %[[V]] : tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>
// CHECK: return %[[OUT]]
