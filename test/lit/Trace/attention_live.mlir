// RUN: poot-trace --op=attention_live --batch=2 | FileCheck %s

// ops::attention_live: len [B] guarded into [1, Lk] with its witness as a
// validation output; inactive K/V rows selected to zero before either matmul
// and inactive scores selected to -inf before the softmax.

// CHECK-LABEL: func.func @attention_live(
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x1x16xf32> {poot.name = "q"}
// CHECK-SAME: %[[K:[^:]+]]: tensor<2x2x32x16xf32> {poot.name = "k"}
// CHECK-SAME: %[[V:[^:]+]]: tensor<2x2x32x16xf32> {poot.name = "v"}
// CHECK-SAME: %[[LEN:[^:]+]]: tensor<2xi32> {poot.name = "len", poot.slot = "len"}
// CHECK-SAME: -> (tensor<2x4x1x16xf32> {poot.name = "out"}, tensor<i1> {poot.name = "len_ok", poot.validation})

// len' = clamp(len, 1, 32), ok = (len == len')
// CHECK: %[[CL:.+]], %[[OK:.+]] = poot.index_guard %[[LEN]] {hi = 32 : i64, lo = 1 : i64} : tensor<2xi32>
// CHECK: %[[RL:.+]] = poot.reshape %[[CL]] : tensor<2xi32> -> tensor<2x1x1x1xi32>

// k = t < len' ? k : 0 (a select, so a NaN in an unused row cannot leak)
// CHECK: %[[ROW:.+]] = poot.iota {dim = 2 : i64} : tensor<1x1x32x1xi32>
// CHECK: %[[ACTR:.+]] = poot.compare lt, %[[ROW]], %[[RL]] : tensor<1x1x32x1xi32>, tensor<2x1x1x1xi32>
// CHECK: %[[KL:.+]] = poot.select %[[ACTR]], %[[K]], %{{.+}} : tensor<2x1x32x1xi1>, tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>
// CHECK: %[[VL:.+]] = poot.select %[[ACTR]], %[[V]], %{{.+}}
// CHECK: %[[COL:.+]] = poot.iota {dim = 3 : i64} : tensor<1x1x1x32xi32>
// CHECK: %[[ACTS:.+]] = poot.compare lt, %[[COL]], %[[RL]]

// s = (q . repeat_kv(k)^T) * scale
// CHECK: poot.reshape %[[KL]] : tensor<2x2x32x16xf32> -> tensor<2x2x1x32x16xf32>
// CHECK: poot.reshape %[[VL]]
// CHECK: %[[QK:.+]] = poot.matmul %[[Q]], %{{.+}}
// CHECK: %[[S:.+]] = poot.mul %[[QK]], %{{.+}}

// s = t < len' ? s : -inf
// CHECK: %[[NINF:.+]] = poot.constant dense<0xFF800000> : tensor<f32>
// CHECK: %[[NINFB:.+]] = poot.broadcast %[[NINF]] {shape = array<i64: 2, 4, 1, 32>}
// CHECK: %[[SL:.+]] = poot.select %[[ACTS]], %[[S]], %[[NINFB]] : tensor<2x1x1x32xi1>, tensor<2x4x1x32xf32>, tensor<2x4x1x32xf32>
// CHECK: poot.reduce_max %[[SL]] {axis = 3 : i64, keepdim}
// CHECK: %[[OUT:.+]] = poot.matmul
// CHECK: return %[[OUT]], %[[OK]]
