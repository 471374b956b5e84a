// RUN: poot-trace --op=rope | FileCheck %s
// RUN: poot-trace --op=rope --rope-style=interleaved --rotary-dim=8 | FileCheck %s --check-prefix=INTER

// ops::ropeTables + ops::rope: cos/sin computed in the graph from the
// positions pos + i of 8 tokens (theta 10000), x [1, 4, 8, 16].

// CHECK-LABEL: func.func @rope(
// CHECK-SAME: %[[X:[^:]+]]: tensor<1x4x8x16xf32> {poot.name = "x"}
// CHECK-SAME: %[[POS:[^:]+]]: tensor<i32> {poot.name = "pos", poot.range = array<i64: 0, 25>, poot.slot = "pos"}

// angle[i, c] = (pos + i) * theta^(-2c/16), duplicated over the two halves
// CHECK: %[[P:.+]] = poot.reshape %[[POS]] : tensor<i32> -> tensor<1x1x1x1xi32>
// CHECK: %[[I:.+]] = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
// CHECK: %[[QP:.+]] = poot.add %[[P]], %[[I]]
// CHECK: %[[QF:.+]] = poot.convert %[[QP]] : tensor<1x1x8x1xi32> -> tensor<1x1x8x1xf32>
// CHECK: %[[INV:.+]] = poot.constant dense<{{.*}}> : tensor<1x1x1x8xf32>
// CHECK: %[[F:.+]] = poot.mul %[[QF]], %[[INV]] : tensor<1x1x8x1xf32>, tensor<1x1x1x8xf32>
// CHECK: %[[ANG:.+]] = poot.concat %[[F]], %[[F]] {axis = 3 : i64}
// CHECK: %[[COS:.+]] = poot.cos %[[ANG]] : tensor<1x1x8x16xf32>
// CHECK: %[[SIN:.+]] = poot.sin %[[ANG]] : tensor<1x1x8x16xf32>

// out = x * cos + concat(-x2, x1) * sin
// CHECK: %[[X1:.+]] = poot.slice %[[X]] {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>}
// CHECK: %[[X2:.+]] = poot.slice %[[X]] {limit = array<i64: 1, 4, 8, 16>, start = array<i64: 0, 0, 0, 8>, step = array<i64: 1, 1, 1, 1>}
// CHECK: %[[N:.+]] = poot.neg %[[X2]]
// CHECK: %[[ROT:.+]] = poot.concat %[[N]], %[[X1]] {axis = 3 : i64}
// CHECK: %[[XC:.+]] = poot.mul %[[X]], %[[COS]]
// CHECK: %[[RS:.+]] = poot.mul %[[ROT]], %[[SIN]]
// CHECK: %[[OUT:.+]] = poot.add %[[XC]], %[[RS]]
// CHECK: return %[[OUT]]

// Interleaved pairs (x[2c], x[2c+1]) over the first 8 channels; channels 8..16
// pass through.
// INTER: %[[F:.+]] = poot.mul %{{.+}}, %{{.+}} : tensor<1x1x8x1xf32>, tensor<1x1x1x4xf32>
// INTER: %[[F5:.+]] = poot.reshape %[[F]] : tensor<1x1x8x4xf32> -> tensor<1x1x8x4x1xf32>
// INTER: %[[FB:.+]] = poot.broadcast %[[F5]] {shape = array<i64: 1, 1, 8, 4, 2>}
// INTER: %[[ANG:.+]] = poot.reshape %[[FB]] : tensor<1x1x8x4x2xf32> -> tensor<1x1x8x8xf32>
// INTER: %[[COS:.+]] = poot.cos %[[ANG]]
// INTER: %[[SIN:.+]] = poot.sin %[[ANG]]
// INTER: %[[XR:.+]] = poot.slice %[[X:[^ ]+]] {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 1>}
// INTER: %[[EV:.+]] = poot.slice %[[XR]] {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 0>, step = array<i64: 1, 1, 1, 2>}
// INTER: %[[OD:.+]] = poot.slice %[[XR]] {limit = array<i64: 1, 4, 8, 8>, start = array<i64: 0, 0, 0, 1>, step = array<i64: 1, 1, 1, 2>}
// INTER: %[[N:.+]] = poot.neg %[[OD]]
// INTER: %[[A:.+]] = poot.reshape %[[N]] : tensor<1x4x8x4xf32> -> tensor<1x4x8x4x1xf32>
// INTER: %[[B:.+]] = poot.reshape %[[EV]] : tensor<1x4x8x4xf32> -> tensor<1x4x8x4x1xf32>
// INTER: %[[PAIRS:.+]] = poot.concat %[[A]], %[[B]] {axis = 4 : i64}
// INTER: %[[ROT:.+]] = poot.reshape %[[PAIRS]] : tensor<1x4x8x4x2xf32> -> tensor<1x4x8x8xf32>
// INTER: %[[XC:.+]] = poot.mul %[[XR]], %[[COS]]
// INTER: %[[RS:.+]] = poot.mul %[[ROT]], %[[SIN]]
// INTER: %[[R:.+]] = poot.add %[[XC]], %[[RS]]
// INTER: %[[PASS:.+]] = poot.slice %[[X]] {limit = array<i64: 1, 4, 8, 16>, start = array<i64: 0, 0, 0, 8>, step = array<i64: 1, 1, 1, 1>}
// INTER: %[[OUT:.+]] = poot.concat %[[R]], %[[PASS]] {axis = 3 : i64} : tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>
// INTER: return %[[OUT]]
