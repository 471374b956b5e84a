// RUN: poot-opt %s --split-input-file --poot-canonicalize | FileCheck %s

// poot-canonicalize: one case per normalising pattern (and the cases each
// must leave alone).

// transpose(transpose(x, p1), p2) = transpose(x, p1[p2])
// CHECK-LABEL: func.func @compose_transposes
// CHECK: %[[T:.+]] = poot.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NEXT: return %[[T]]
func.func @compose_transposes(%x: tensor<2x3x4x5xf32>) -> tensor<2x4x5x3xf32> {
  %0 = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x5xf32>
  %1 = poot.transpose %0 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x3x5xf32>
  return %1 : tensor<2x4x5x3xf32>
}

// -----

// broadcast(broadcast(x)) = broadcast(x)
// CHECK-LABEL: func.func @compose_broadcasts
// CHECK: %[[B:.+]] = poot.broadcast %arg0 {shape = array<i64: 2, 3, 4>}
// CHECK-NEXT: return %[[B]]
func.func @compose_broadcasts(%x: tensor<1x4xf32>) -> tensor<2x3x4xf32> {
  %0 = poot.broadcast %x {shape = array<i64: 3, 4>} : tensor<1x4xf32>
  %1 = poot.broadcast %0 {shape = array<i64: 2, 3, 4>} : tensor<3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// sqrt(1 / sqrt(float(64))) = 64^-1/4, folded to one constant
// CHECK-LABEL: func.func @fold_scale_chain
// CHECK: %[[C:.+]] = poot.constant dense<0.353553385> : tensor<f32>
// CHECK-NEXT: return %[[C]]
func.func @fold_scale_chain() -> tensor<f32> {
  %d = poot.constant dense<64> : tensor<i64>
  %df = poot.convert %d : tensor<i64> -> tensor<f32>
  %s = poot.sqrt %df : tensor<f32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %s : tensor<f32>, tensor<f32>
  %q = poot.sqrt %r : tensor<f32>
  return %q : tensor<f32>
}

// -----

// rsqrt(96), exp(0), tanh(0), log(1), -abs(-2) and (sin, cos)(0) on splats
// CHECK-LABEL: func.func @fold_unary
// CHECK-DAG: %[[R:.+]] = poot.constant dense<0.102062076> : tensor<f32>
// CHECK-DAG: %[[ONE:.+]] = poot.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[ZERO:.+]] = poot.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[N:.+]] = poot.constant dense<-2> : tensor<i32>
// CHECK: return %[[R]], %[[ONE]], %[[ZERO]], %[[ZERO]], %[[N]], %[[ZERO]], %[[ONE]]
func.func @fold_unary() -> (tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>) {
  %d = poot.constant dense<96.0> : tensor<f32>
  %r = poot.rsqrt %d : tensor<f32>
  %z = poot.constant dense<0.0> : tensor<2xf32>
  %one = poot.constant dense<1.0> : tensor<2xf32>
  %e = poot.exp %z : tensor<2xf32>
  %t = poot.tanh %z : tensor<2xf32>
  %l = poot.log %one : tensor<2xf32>
  %m2 = poot.constant dense<-2> : tensor<i32>
  %a = poot.abs %m2 : tensor<i32>
  %n = poot.neg %a : tensor<i32>
  %s = poot.sin %z : tensor<2xf32>
  %c = poot.cos %z : tensor<2xf32>
  return %r, %e, %t, %l, %n, %s, %c : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<i32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// Elementwise constants fold with numpy broadcasting; integers truncate and
// wrap like the evaluator's, and a division by zero stays a run-time error.
// CHECK-LABEL: func.func @fold_binary
// CHECK-DAG: %[[A:.+]] = poot.constant dense<{{\[}}[1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: %[[D:.+]] = poot.constant dense<[3, -3, 2, 2147483647]> : tensor<4xi32>
// CHECK-DAG: %[[M:.+]] = poot.constant dense<[-5, 5, -2147483648, 8]> : tensor<4xi32>
// CHECK-DAG: %[[P:.+]] = poot.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG: %[[X:.+]] = poot.constant dense<[1.000000e+00, 0x7FC00000]> : tensor<2xf32>
// CHECK: %[[Z:.+]] = poot.div
// CHECK: return %[[A]], %[[D]], %[[M]], %[[P]], %[[X]], %[[Z]]
func.func @fold_binary() -> (tensor<2x2xf32>, tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<2xf32>, tensor<2xi32>) {
  %a = poot.constant dense<[[1.0], [3.0]]> : tensor<2x1xf32>
  %b = poot.constant dense<[10.0, 21.0]> : tensor<2xf32>
  %sum = poot.add %a, %b : tensor<2x1xf32>, tensor<2xf32>
  %n = poot.constant dense<[7, -7, 5, -2147483647]> : tensor<4xi32>
  %two = poot.constant dense<[2, 2, 2, -1]> : tensor<4xi32>
  %q = poot.div %n, %two : tensor<4xi32>, tensor<4xi32>
  %mn = poot.constant dense<[-5, 5, 1073741824, 2]> : tensor<4xi32>
  %mf = poot.constant dense<[1, 1, 2, 4]> : tensor<4xi32>
  %m = poot.mul %mn, %mf : tensor<4xi32>, tensor<4xi32>
  %base = poot.constant dense<2.0> : tensor<f32>
  %e = poot.constant dense<-2.0> : tensor<f32>
  %p = poot.pow %base, %e : tensor<f32>, tensor<f32>
  %x1 = poot.constant dense<[1.0, 0x7FC00000]> : tensor<2xf32>
  %x2 = poot.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %x = poot.max %x1, %x2 : tensor<2xf32>, tensor<2xf32>
  %i = poot.constant dense<[1, 2]> : tensor<2xi32>
  %zero = poot.constant dense<0> : tensor<2xi32>
  %z = poot.div %i, %zero : tensor<2xi32>, tensor<2xi32>
  return %sum, %q, %m, %p, %x, %z : tensor<2x2xf32>, tensor<4xi32>, tensor<4xi32>, tensor<f32>, tensor<2xf32>, tensor<2xi32>
}

// -----

// convert of constants: to float rounds, float to int truncates and
// saturates (NaN gives 0), anything to i1 is x != 0.
// CHECK-LABEL: func.func @fold_convert
// CHECK-DAG: %[[F:.+]] = poot.constant dense<[1.000000e+00, 3.000000e+00, -7.000000e+00]> : tensor<3xf16>
// CHECK-DAG: %[[I:.+]] = poot.constant dense<[2, -2, 2147483647, 0]> : tensor<4xi32>
// CHECK-DAG: %[[B:.+]] = poot.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK: return %[[F]], %[[I]], %[[B]]
func.func @fold_convert() -> (tensor<3xf16>, tensor<4xi32>, tensor<3xi1>) {
  %a = poot.constant dense<[1, 3, -7]> : tensor<3xi64>
  %f = poot.convert %a : tensor<3xi64> -> tensor<3xf16>
  %b = poot.constant dense<[2.9, -2.9, 1.0e+10, 0x7FC00000]> : tensor<4xf32>
  %i = poot.convert %b : tensor<4xf32> -> tensor<4xi32>
  %c = poot.constant dense<[0.5, 0.0, -1.0]> : tensor<3xf32>
  %t = poot.convert %c : tensor<3xf32> -> tensor<3xi1>
  return %f, %i, %t : tensor<3xf16>, tensor<4xi32>, tensor<3xi1>
}

// -----

// A registered tril buffer sliced to the current lengths becomes a constant.
// CHECK-LABEL: func.func @fold_slice
// CHECK: %[[C:.+]] = poot.constant dense<{{\[}}[true, true, false], [true, true, true]]> : tensor<2x3xi1>
// CHECK-NEXT: return %[[C]]
func.func @fold_slice() -> tensor<2x3xi1> {
  %tril = poot.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %s = poot.slice %tril {start = array<i64: 1, 0>, limit = array<i64: 3, 3>, step = array<i64: 1, 1>} : tensor<4x4xi1>
  return %s : tensor<2x3xi1>
}

// -----

// pow(z, -1) = 1 / z exactly (zeros, infinities, NaN included); pow(z, -2)
// stays.
// CHECK-LABEL: func.func @pow_reciprocal
// CHECK: %[[ONE:.+]] = poot.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[R:.+]] = poot.div %[[ONE]], %arg0 : tensor<f32>, tensor<2x1xf32>
// CHECK: %[[P:.+]] = poot.pow %arg0,
// CHECK: return %[[R]], %[[P]]
func.func @pow_reciprocal(%z: tensor<2x1xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>) {
  %m1 = poot.constant dense<-1.0> : tensor<f32>
  %r = poot.pow %z, %m1 : tensor<2x1xf32>, tensor<f32>
  %m2 = poot.constant dense<-2.0> : tensor<f32>
  %p = poot.pow %z, %m2 : tensor<2x1xf32>, tensor<f32>
  return %r, %p : tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// transpose(q * c) = transpose(q) * c: the scale moves next to its consumer.
// CHECK-LABEL: func.func @hoist_transpose
// CHECK-DAG: %[[C:.+]] = poot.constant dense<1.250000e-01> : tensor<f32>
// CHECK-DAG: %[[T:.+]] = poot.transpose %arg0 {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[M:.+]] = poot.mul %[[T]], %[[C]]
// CHECK: return %[[M]]
func.func @hoist_transpose(%q: tensor<1x5x2x8xf32>) -> tensor<1x2x5x8xf32> {
  %c = poot.constant dense<0.125> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<1x5x2x8xf32>, tensor<f32>
  %t = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32>
  return %t : tensor<1x2x5x8xf32>
}

// -----

// reshape(1 / z) = 1 / reshape(z), and broadcast(k / c) = broadcast(k) / c.
// CHECK-LABEL: func.func @hoist_reshape_broadcast
// CHECK-DAG: %[[RS:.+]] = poot.reshape %arg0 : tensor<2x3xf32> -> tensor<2x3x1xf32>
// CHECK-DAG: %[[R:.+]] = poot.div %{{.+}}, %[[RS]]
// CHECK-DAG: %[[B:.+]] = poot.broadcast %arg1 {shape = array<i64: 2, 4, 8>}
// CHECK-DAG: %[[D:.+]] = poot.div %[[B]], %{{.+}} : tensor<2x4x8xf32>, tensor<f32>
// CHECK: return %[[R]], %[[D]]
func.func @hoist_reshape_broadcast(%z: tensor<2x3xf32>, %k: tensor<2x1x8xf32>) -> (tensor<2x3x1xf32>, tensor<2x4x8xf32>) {
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %z : tensor<f32>, tensor<2x3xf32>
  %r3 = poot.reshape %r : tensor<2x3xf32> -> tensor<2x3x1xf32>
  %c = poot.constant dense<3.0> : tensor<f32>
  %kc = poot.div %k, %c : tensor<2x1x8xf32>, tensor<f32>
  %kb = poot.broadcast %kc {shape = array<i64: 2, 4, 8>} : tensor<2x1x8xf32>
  return %r3, %kb : tensor<2x3x1xf32>, tensor<2x4x8xf32>
}

// -----

// A scaled value read elsewhere too stays where it is (moving it would
// compute the product twice).
// CHECK-LABEL: func.func @hoist_shared
// CHECK: %[[M:.+]] = poot.mul %arg0,
// CHECK: %[[T:.+]] = poot.transpose %[[M]]
// CHECK: return %[[T]], %[[M]]
func.func @hoist_shared(%q: tensor<1x5x2x8xf32>) -> (tensor<1x2x5x8xf32>, tensor<1x5x2x8xf32>) {
  %c = poot.constant dense<0.125> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<1x5x2x8xf32>, tensor<f32>
  %t = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32>
  return %t, %qs : tensor<1x2x5x8xf32>, tensor<1x5x2x8xf32>
}

// -----

// reshape(reduce(x, 2)) back to the keepdim shape = reduce(x, 2, keepdim).
// CHECK-LABEL: func.func @reduce_keepdim
// CHECK: %[[S:.+]] = poot.reduce_sum %arg0 {axis = 2 : i64, keepdim}
// CHECK: %[[M:.+]] = poot.reduce_max %arg0 {axis = 2 : i64, keepdim}
// CHECK: return %[[S]], %[[M]]
func.func @reduce_keepdim(%x: tensor<2x3x4xf32>) -> (tensor<2x3x1xf32>, tensor<2x3x1xf32>) {
  %s = poot.reduce_sum %x {axis = -1 : i64} : tensor<2x3x4xf32>
  %s3 = poot.reshape %s : tensor<2x3xf32> -> tensor<2x3x1xf32>
  %m = poot.reduce_max %x {axis = 2 : i64} : tensor<2x3x4xf32>
  %m3 = poot.reshape %m : tensor<2x3xf32> -> tensor<2x3x1xf32>
  return %s3, %m3 : tensor<2x3x1xf32>, tensor<2x3x1xf32>
}

// -----

// A reshape to another shape is not a keepdim.
// CHECK-LABEL: func.func @reduce_reshaped_elsewhere
// CHECK: poot.reduce_sum %arg0 {axis = 2 : i64} :
// CHECK: poot.reshape
func.func @reduce_reshaped_elsewhere(%x: tensor<2x3x4xf32>) -> tensor<3x2x1xf32> {
  %s = poot.reduce_sum %x {axis = 2 : i64} : tensor<2x3x4xf32>
  %s3 = poot.reshape %s : tensor<2x3xf32> -> tensor<3x2x1xf32>
  return %s3 : tensor<3x2x1xf32>
}

// -----

// repeat_kv as a head gather with the map [0, 0, 1, 1] (h / 2) and with the
// map arange(4) // 2 computed in the graph: reshape/broadcast/reshape.
// CHECK-LABEL: func.func @gather_repeat_interleave
// CHECK: %[[R:.+]] = poot.reshape %arg0 : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
// CHECK: %[[B:.+]] = poot.broadcast %[[R]] {shape = array<i64: 1, 2, 2, 8, 16>}
// CHECK: %[[K:.+]] = poot.reshape %[[B]] : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK: %[[R2:.+]] = poot.reshape %arg1 : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
// CHECK: %[[B2:.+]] = poot.broadcast %[[R2]] {shape = array<i64: 1, 2, 2, 8, 16>}
// CHECK: %[[K2:.+]] = poot.reshape %[[B2]] : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK-NOT: poot.gather
// CHECK: return %[[K]], %[[K2]]
func.func @gather_repeat_interleave(%k: tensor<1x2x8x16xf32>, %k2: tensor<1x2x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %heads = poot.constant dense<[0, 0, 1, 1]> : tensor<4xi32>
  %a = poot.gather %k[%heads] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<4xi32>
  %h = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %n = poot.constant dense<2> : tensor<i64>
  %map = poot.div %h, %n : tensor<4xi64>, tensor<i64>
  %b = poot.gather %k2[%map] {axis = -3 : i64} : tensor<1x2x8x16xf32>, tensor<4xi64>
  return %a, %b : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// An identity head map is the tensor itself; a tiled map (h % 2) stays a
// gather.
// CHECK-LABEL: func.func @gather_identity_and_tile
// CHECK: %[[T:.+]] = poot.gather %arg0[
// CHECK: return %arg0, %[[T]]
func.func @gather_identity_and_tile(%k: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x4x8x16xf32>) {
  %id = poot.iota {dim = 0 : i64} : tensor<2xi32>
  %a = poot.gather %k[%id] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<2xi32>
  %tile = poot.constant dense<[0, 1, 0, 1]> : tensor<4xi32>
  %b = poot.gather %k[%tile] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<4xi32>
  return %a, %b : tensor<1x2x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// A keys-first softmax (k . q^T, max/sum over axis 2) read through a
// transpose is rebuilt keys-last: (k . q^T)^T = q . k^T, the reductions move
// to axis 3, and the inputs from outside (the mask) are transposed.
// CHECK-LABEL: func.func @transpose_score_chain
// CHECK: %[[KT:.+]] = poot.transpose %arg1 {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[S:.+]] = poot.matmul %arg0, %[[KT]] : tensor<1x2x3x16xf32>, tensor<1x2x16x8xf32>
// CHECK: %[[MT:.+]] = poot.transpose %arg2 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x8x3xf32>
// CHECK: %[[SM:.+]] = poot.add %[[S]], %[[MT]]
// CHECK: poot.reduce_max %[[SM]] {axis = 3 : i64, keepdim}
// CHECK: poot.reduce_sum %{{.+}} {axis = 3 : i64, keepdim}
// CHECK: %[[P:.+]] = poot.div
// CHECK-NOT: poot.transpose
// CHECK: return %[[P]] : tensor<1x2x3x8xf32>
func.func @transpose_score_chain(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x8x16xf32>, %mask: tensor<1x1x8x3xf32>) -> tensor<1x2x3x8xf32> {
  %qt = poot.transpose %q {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x3x16xf32>
  %s = poot.matmul %k, %qt : tensor<1x2x8x16xf32>, tensor<1x2x16x3xf32>
  %sm = poot.add %s, %mask : tensor<1x2x8x3xf32>, tensor<1x1x8x3xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %d = poot.sub %sm, %m : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %e = poot.exp %d : tensor<1x2x8x3xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %p = poot.div %e, %z : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x3xf32>
  return %pt : tensor<1x2x3x8xf32>
}

// -----

// The same chain with its exp also returned: the old layout is still needed,
// so nothing moves.
// CHECK-LABEL: func.func @transpose_score_chain_shared
// CHECK: poot.reduce_max %{{.+}} {axis = 2 : i64, keepdim}
// CHECK: %[[PT:.+]] = poot.transpose %{{.+}} {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x3xf32>
// CHECK: return %[[PT]]
func.func @transpose_score_chain_shared(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x8x16xf32>) -> (tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>) {
  %qt = poot.transpose %q {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x3x16xf32>
  %s = poot.matmul %k, %qt : tensor<1x2x8x16xf32>, tensor<1x2x16x3xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %d = poot.sub %s, %m : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %e = poot.exp %d : tensor<1x2x8x3xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x2x8x3xf32>
  %p = poot.div %e, %z : tensor<1x2x8x3xf32>, tensor<1x2x1x3xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x3xf32>
  return %pt, %e : tensor<1x2x3x8xf32>, tensor<1x2x8x3xf32>
}

// -----

// A softmax on the 2-D view [b*h*q, k] between two reshapes: every row of
// keys stays one row, so the split after the softmax moves up, composes with
// the merge before it, and both vanish; the reductions move to axis 3.
// CHECK-LABEL: func.func @score_chain_2d_view
// CHECK-NOT: poot.reshape
// CHECK: %[[S:.+]] = poot.matmul %{{.+}}, %{{.+}} : tensor<1x2x3x8xf32>, tensor<1x2x8x5xf32>
// CHECK: poot.reduce_max %[[S]] {axis = 3 : i64, keepdim} : tensor<1x2x3x5xf32>
// CHECK: poot.reduce_sum %{{.+}} {axis = 3 : i64, keepdim} : tensor<1x2x3x5xf32>
// CHECK: %[[P:.+]] = poot.div
// CHECK-NOT: poot.reshape
// CHECK: poot.matmul %[[P]], %arg1
func.func @score_chain_2d_view(%s: tensor<1x2x3x5xf32>, %v: tensor<1x2x5x16xf32>) -> tensor<1x2x3x16xf32> {
  %q = poot.constant dense<1.0> : tensor<1x2x3x8xf32>
  %k = poot.constant dense<1.0> : tensor<1x2x8x5xf32>
  %x = poot.matmul %q, %k : tensor<1x2x3x8xf32>, tensor<1x2x8x5xf32>
  %s2 = poot.reshape %x : tensor<1x2x3x5xf32> -> tensor<6x5xf32>
  %m = poot.reduce_max %s2 {axis = 1 : i64, keepdim} : tensor<6x5xf32>
  %d = poot.sub %s2, %m : tensor<6x5xf32>, tensor<6x1xf32>
  %e = poot.exp %d : tensor<6x5xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<6x5xf32>
  %p2 = poot.div %e, %z : tensor<6x5xf32>, tensor<6x1xf32>
  %p = poot.reshape %p2 : tensor<6x5xf32> -> tensor<1x2x3x5xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x5xf32>, tensor<1x2x5x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// Scores permuted to [b, q, h, k] and back around the softmax: the two
// permutes compose away, and the causal mask built from iotas in the
// [1, q, 1, k] layout is rebuilt with its iotas along the permuted dims
// (q on axis 2), so the mask readers still see indices.
// CHECK-LABEL: func.func @score_chain_iota_mask
// CHECK-NOT: poot.transpose
// CHECK-DAG: %[[S:.+]] = poot.matmul %arg0, %arg1
// CHECK-DAG: %[[R:.+]] = poot.iota {dim = 2 : i64} : tensor<1x1x4x4xi32>
// CHECK-DAG: %[[C:.+]] = poot.iota {dim = 3 : i64} : tensor<1x1x4x4xi32>
// CHECK: %[[K:.+]] = poot.compare ge, %[[R]], %[[C]]
// CHECK: poot.select %[[K]], %[[S]], %{{.+}} : tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>
// CHECK-NOT: poot.transpose
// CHECK: return
func.func @score_chain_iota_mask(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x16x4xf32>) -> tensor<1x2x4x4xf32> {
  %s = poot.matmul %q, %k : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %sq = poot.transpose %s {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x4xf32>
  %row = poot.iota {dim = 1 : i64} : tensor<1x4x1x4xi32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x4x1x4xi32>
  %keep = poot.compare ge, %row, %col : tensor<1x4x1x4xi32>, tensor<1x4x1x4xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %sq, %ninf : tensor<1x4x1x4xi1>, tensor<1x4x2x4xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x2x4xf32>
  %d = poot.sub %sm, %m : tensor<1x4x2x4xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x4xf32>
  %p = poot.div %e, %z : tensor<1x4x2x4xf32>, tensor<1x4x2x1xf32>
  %ph = poot.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x4xf32>
  return %ph : tensor<1x2x4x4xf32>
}

// -----

// P . V written as (V^T . P^T) permuted to [b, q, h, d]: the product of the
// transposes swapped is P . V, and what is left of the permute is the
// output's own layout.
// CHECK-LABEL: func.func @transposed_pv_product
// CHECK: %[[P:.+]] = poot.div
// CHECK: %[[O:.+]] = poot.matmul %[[P]], %arg1 : tensor<1x2x4x6xf32>, tensor<1x2x6x16xf32>
// CHECK: %[[T:.+]] = poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: return %[[T]]
func.func @transposed_pv_product(%s: tensor<1x2x4x6xf32>, %v: tensor<1x2x6x16xf32>) -> tensor<1x4x2x16xf32> {
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x4x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x6xf32>
  %vt = poot.transpose %v {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %ot = poot.matmul %vt, %pt : tensor<1x2x16x6xf32>, tensor<1x2x6x4xf32>
  %o = poot.transpose %ot {perm = array<i64: 0, 3, 1, 2>} : tensor<1x2x16x4xf32>
  return %o : tensor<1x4x2x16xf32>
}

// -----

// BLOOM's view back to [b*h, q, k] before bmm moves past P . V, v viewed
// [b, h, k, d] with it. The same view of one head of probabilities against
// values with their own batch [3, k, d] stays: bmm broadcasts the
// probabilities there, and v's batch has no place in theirs.
// CHECK-LABEL: func.func @lift_batch_reshape
// CHECK: %[[P:.+]] = poot.div %{{.+}} : tensor<2x3x4x6xf32>
// CHECK: %[[V4:.+]] = poot.reshape %arg1 : tensor<6x6x16xf32> -> tensor<2x3x6x16xf32>
// CHECK: %[[O:.+]] = poot.matmul %[[P]], %[[V4]]
// CHECK: %[[O3:.+]] = poot.reshape %[[O]] : tensor<2x3x4x16xf32> -> tensor<6x4x16xf32>
// CHECK: %[[Q3:.+]] = poot.reshape %{{.+}} : tensor<1x1x4x6xf32> -> tensor<1x4x6xf32>
// CHECK: %[[O2:.+]] = poot.matmul %[[Q3]], %arg2 : tensor<1x4x6xf32>, tensor<3x6x16xf32>
// CHECK: return %[[O3]], %[[O2]]
func.func @lift_batch_reshape(%s: tensor<2x3x4x6xf32>, %v: tensor<6x6x16xf32>, %w: tensor<3x6x16xf32>) -> (tensor<6x4x16xf32>, tensor<3x4x16xf32>) {
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x3x4x6xf32>
  %d = poot.sub %s, %m : tensor<2x3x4x6xf32>, tensor<2x3x4x1xf32>
  %e = poot.exp %d : tensor<2x3x4x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x4x6xf32>
  %p = poot.div %e, %z : tensor<2x3x4x6xf32>, tensor<2x3x4x1xf32>
  %p3 = poot.reshape %p : tensor<2x3x4x6xf32> -> tensor<6x4x6xf32>
  %o = poot.matmul %p3, %v : tensor<6x4x6xf32>, tensor<6x6x16xf32>
  %s1 = poot.slice %s {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<2x3x4x6xf32>
  %m2 = poot.reduce_max %s1 {axis = 3 : i64, keepdim} : tensor<1x1x4x6xf32>
  %d2 = poot.sub %s1, %m2 : tensor<1x1x4x6xf32>, tensor<1x1x4x1xf32>
  %e2 = poot.exp %d2 : tensor<1x1x4x6xf32>
  %z2 = poot.reduce_sum %e2 {axis = 3 : i64, keepdim} : tensor<1x1x4x6xf32>
  %q2 = poot.div %e2, %z2 : tensor<1x1x4x6xf32>, tensor<1x1x4x1xf32>
  %q3 = poot.reshape %q2 : tensor<1x1x4x6xf32> -> tensor<1x4x6xf32>
  %o2 = poot.matmul %q3, %w : tensor<1x4x6xf32>, tensor<3x6x16xf32>
  return %o, %o2 : tensor<6x4x16xf32>, tensor<3x4x16xf32>
}

// -----

// fairseq: the masked [b, h, q, k] view merged back to [b*h, q, k] before
// the softmax. The probabilities are relabelled into the view at P . V (the
// merge composes with the split of the first matmul's result away), the
// product is taken over [b, h], then reshaped back.
// CHECK-LABEL: func.func @split_probabilities_at_pv
// CHECK: %[[S:.+]] = poot.matmul %{{.+}}, %{{.+}} : tensor<2x3x4x8xf32>, tensor<2x3x8x6xf32>
// CHECK: poot.select %arg1, %{{.+}}, %[[S]] : tensor<2x1x1x6xi1>, tensor<f32>, tensor<2x3x4x6xf32>
// CHECK: %[[P:.+]] = poot.div %{{.+}} : tensor<2x3x4x6xf32>, tensor<2x3x4x1xf32>
// CHECK: %[[V4:.+]] = poot.reshape %arg2 : tensor<6x6x16xf32> -> tensor<2x3x6x16xf32>
// CHECK: %[[O:.+]] = poot.matmul %[[P]], %[[V4]]
// CHECK: %[[O3:.+]] = poot.reshape %[[O]] : tensor<2x3x4x16xf32> -> tensor<6x4x16xf32>
// CHECK: return %[[O3]]
func.func @split_probabilities_at_pv(%s: tensor<6x4x6xf32>, %pad: tensor<2x1x1x6xi1>, %v: tensor<6x6x16xf32>) -> tensor<6x4x16xf32> {
  %q = poot.constant dense<1.0> : tensor<6x4x8xf32>
  %k = poot.constant dense<1.0> : tensor<6x8x6xf32>
  %x = poot.matmul %q, %k : tensor<6x4x8xf32>, tensor<6x8x6xf32>
  %x4 = poot.reshape %x : tensor<6x4x6xf32> -> tensor<2x3x4x6xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm4 = poot.select %pad, %ninf, %x4 : tensor<2x1x1x6xi1>, tensor<f32>, tensor<2x3x4x6xf32>
  %sm = poot.reshape %sm4 : tensor<2x3x4x6xf32> -> tensor<6x4x6xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<6x4x6xf32>
  %d = poot.sub %sm, %m : tensor<6x4x6xf32>, tensor<6x4x1xf32>
  %e = poot.exp %d : tensor<6x4x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<6x4x6xf32>
  %p = poot.div %e, %z : tensor<6x4x6xf32>, tensor<6x4x1xf32>
  %o = poot.matmul %p, %v : tensor<6x4x6xf32>, tensor<6x6x16xf32>
  return %o : tensor<6x4x16xf32>
}

// -----

// An MLP's SiLU (x / (1 + exp(-x))) holds an exp, but no softmax's: the
// batch-splitting reshape after it stays where it is.
// CHECK-LABEL: func.func @mlp_sigmoid_keeps_layout
// CHECK: poot.matmul %arg0, %arg1 : tensor<4x3x16xf32>, tensor<16x32xf32>
// CHECK: %[[R:.+]] = poot.reshape %{{.+}} : tensor<4x3x32xf32> -> tensor<2x2x3x32xf32>
// CHECK: return %[[R]]
func.func @mlp_sigmoid_keeps_layout(%x: tensor<4x3x16xf32>, %w: tensor<16x32xf32>) -> tensor<2x2x3x32xf32> {
  %h = poot.matmul %x, %w : tensor<4x3x16xf32>, tensor<16x32xf32>
  %n = poot.neg %h : tensor<4x3x32xf32>
  %e = poot.exp %n : tensor<4x3x32xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %d = poot.add %e, %one : tensor<4x3x32xf32>, tensor<f32>
  %s = poot.div %h, %d : tensor<4x3x32xf32>, tensor<4x3x32xf32>
  %r = poot.reshape %s : tensor<4x3x32xf32> -> tensor<2x2x3x32xf32>
  return %r : tensor<2x2x3x32xf32>
}

// -----

// Rows merging (query, head): the view [b, q, h, k] of bmm(q [b, q*h, d],
// k [b, d, k]) is the product over q viewed [b, q, h, d] and transposed to
// [b, h, q, d] (the query factor as the rows: nothing says otherwise) with
// k viewed [b, 1, d, k]; P . V over the merged view back takes the same
// transpose, and the two pairs compose away.
// CHECK-LABEL: func.func @split_product_rows
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %arg0 : tensor<2x12x8xf32> -> tensor<2x3x4x8xf32>
// CHECK-DAG: %[[K4:.+]] = poot.reshape %arg1 : tensor<2x8x5xf32> -> tensor<2x1x8x5xf32>
// CHECK-DAG: %[[QT:.+]] = poot.transpose %[[Q4]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[S:.+]] = poot.matmul %[[QT]], %[[K4]] : tensor<2x4x3x8xf32>, tensor<2x1x8x5xf32>
// CHECK-DAG: %[[V4:.+]] = poot.reshape %arg2 : tensor<2x5x8xf32> -> tensor<2x1x5x8xf32>
// CHECK-DAG: %[[P:.+]] = poot.div %{{.+}} : tensor<2x4x3x5xf32>, tensor<2x4x3x1xf32>
// CHECK: %[[O:.+]] = poot.matmul %[[P]], %[[V4]] : tensor<2x4x3x5xf32>, tensor<2x1x5x8xf32>
// CHECK: %[[OT:.+]] = poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[R:.+]] = poot.reshape %[[OT]] : tensor<2x3x4x8xf32> -> tensor<2x12x8xf32>
// CHECK: return %[[R]]
func.func @split_product_rows(%q: tensor<2x12x8xf32>, %k: tensor<2x8x5xf32>, %v: tensor<2x5x8xf32>) -> tensor<2x12x8xf32> {
  %s = poot.matmul %q, %k : tensor<2x12x8xf32>, tensor<2x8x5xf32>
  %s4 = poot.reshape %s : tensor<2x12x5xf32> -> tensor<2x3x4x5xf32>
  %m = poot.reduce_max %s4 {axis = 3 : i64, keepdim} : tensor<2x3x4x5xf32>
  %d = poot.sub %s4, %m : tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>
  %e = poot.exp %d : tensor<2x3x4x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x4x5xf32>
  %p = poot.div %e, %z : tensor<2x3x4x5xf32>, tensor<2x3x4x1xf32>
  %p3 = poot.reshape %p : tensor<2x3x4x5xf32> -> tensor<2x12x5xf32>
  %o = poot.matmul %p3, %v : tensor<2x12x5xf32>, tensor<2x5x8xf32>
  return %o : tensor<2x12x8xf32>
}

// -----

// The same split with a mask that varies along the inner factor only
// ([h, q] rows, h * Lq + q): the inner factor stays the rows, no transpose.
// CHECK-LABEL: func.func @split_product_rows_inner
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %arg0 : tensor<2x12x8xf32> -> tensor<2x4x3x8xf32>
// CHECK-DAG: %[[K4:.+]] = poot.reshape %arg1 : tensor<2x8x5xf32> -> tensor<2x1x8x5xf32>
// CHECK: %[[S:.+]] = poot.matmul %[[Q4]], %[[K4]] : tensor<2x4x3x8xf32>, tensor<2x1x8x5xf32>
// CHECK-NOT: poot.transpose
// CHECK: %[[O:.+]] = poot.matmul %{{.+}}, %{{.+}} : tensor<2x4x3x5xf32>, tensor<2x1x5x8xf32>
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<2x4x3x8xf32> -> tensor<2x12x8xf32>
// CHECK: return %[[R]]
func.func @split_product_rows_inner(%q: tensor<2x12x8xf32>, %k: tensor<2x8x5xf32>, %v: tensor<2x5x8xf32>, %mask: tensor<3x5xf32>) -> tensor<2x12x8xf32> {
  %s = poot.matmul %q, %k : tensor<2x12x8xf32>, tensor<2x8x5xf32>
  %s4 = poot.reshape %s : tensor<2x12x5xf32> -> tensor<2x4x3x5xf32>
  %sm = poot.add %s4, %mask : tensor<2x4x3x5xf32>, tensor<3x5xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x3x5xf32>
  %d = poot.sub %sm, %m : tensor<2x4x3x5xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x5xf32>
  %p = poot.div %e, %z : tensor<2x4x3x5xf32>, tensor<2x4x3x1xf32>
  %p3 = poot.reshape %p : tensor<2x4x3x5xf32> -> tensor<2x12x5xf32>
  %o = poot.matmul %p3, %v : tensor<2x12x5xf32>, tensor<2x5x8xf32>
  return %o : tensor<2x12x8xf32>
}

// -----

// q1 . k1^T + q2 . k2^T of one shape is concat(q1, q2) . concat(k1, k2)^T,
// the keys joined under their shared transpose. A product the add
// broadcasts (one head against four) stays a sum.
// CHECK-LABEL: func.func @sum_of_score_products
// CHECK-DAG: %[[Q:.+]] = poot.concat %arg0, %arg1 {axis = 3 : i64} : tensor<1x4x5x8xf32>, tensor<1x4x5x4xf32>
// CHECK-DAG: %[[K:.+]] = poot.concat %arg2, %arg3 {axis = 3 : i64} : tensor<1x1x6x8xf32>, tensor<1x1x6x4xf32>
// CHECK: %[[KT:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 1, 3, 2>}
// CHECK: %[[S:.+]] = poot.matmul %[[Q]], %[[KT]] : tensor<1x4x5x12xf32>, tensor<1x1x12x6xf32>
// CHECK: poot.reduce_max %[[S]]
// CHECK: %[[B1:.+]] = poot.matmul %arg0, %{{.+}} : tensor<1x4x5x8xf32>, tensor<1x1x8x6xf32>
// CHECK: %[[B2:.+]] = poot.matmul %arg4, %{{.+}} : tensor<1x1x5x4xf32>, tensor<1x1x4x6xf32>
// CHECK: poot.add %[[B1]], %[[B2]]
func.func @sum_of_score_products(%q1: tensor<1x4x5x8xf32>, %q2: tensor<1x4x5x4xf32>, %k1: tensor<1x1x6x8xf32>, %k2: tensor<1x1x6x4xf32>, %q3: tensor<1x1x5x4xf32>) -> (tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>) {
  %k1t = poot.transpose %k1 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x6x8xf32>
  %k2t = poot.transpose %k2 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x6x4xf32>
  %s1 = poot.matmul %q1, %k1t : tensor<1x4x5x8xf32>, tensor<1x1x8x6xf32>
  %s2 = poot.matmul %q2, %k2t : tensor<1x4x5x4xf32>, tensor<1x1x4x6xf32>
  %s = poot.add %s1, %s2 : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x5x6xf32>
  %d = poot.sub %s, %m : tensor<1x4x5x6xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x6xf32>
  %p = poot.div %e, %z : tensor<1x4x5x6xf32>, tensor<1x4x5x1xf32>
  %b1 = poot.matmul %q1, %k1t : tensor<1x4x5x8xf32>, tensor<1x1x8x6xf32>
  %b2 = poot.matmul %q3, %k2t : tensor<1x1x5x4xf32>, tensor<1x1x4x6xf32>
  %b = poot.add %b1, %b2 : tensor<1x4x5x6xf32>, tensor<1x1x5x6xf32>
  %bm = poot.reduce_max %b {axis = 3 : i64, keepdim} : tensor<1x4x5x6xf32>
  %bd = poot.sub %b, %bm : tensor<1x4x5x6xf32>, tensor<1x4x5x1xf32>
  %be = poot.exp %bd : tensor<1x4x5x6xf32>
  %bz = poot.reduce_sum %be {axis = 3 : i64, keepdim} : tensor<1x4x5x6xf32>
  %bp = poot.div %be, %bz : tensor<1x4x5x6xf32>, tensor<1x4x5x1xf32>
  return %p, %bp : tensor<1x4x5x6xf32>, tensor<1x4x5x6xf32>
}

// -----

// x / 8 = x * 0.125 bit for bit (a power of two); x / 3 stays a division.
// CHECK-LABEL: func.func @div_power_of_two
// CHECK-DAG: %[[E:.+]] = poot.constant dense<1.250000e-01> : tensor<f32>
// CHECK-DAG: %[[M:.+]] = poot.mul %arg0, %[[E]]
// CHECK-DAG: %[[D:.+]] = poot.div %arg0, %{{.+}} : tensor<2x4xf32>, tensor<f32>
// CHECK: return %[[M]], %[[D]]
func.func @div_power_of_two(%x: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %c8 = poot.constant dense<8.0> : tensor<f32>
  %a = poot.div %x, %c8 : tensor<2x4xf32>, tensor<f32>
  %c3 = poot.constant dense<3.0> : tensor<f32>
  %b = poot.div %x, %c3 : tensor<2x4xf32>, tensor<f32>
  return %a, %b : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Splats fold whatever their size: one value computed once.
// CHECK-LABEL: func.func @fold_large_splat
// CHECK: %[[C:.+]] = poot.constant dense<2.500000e-01> : tensor<64x128xf32>
// CHECK-NEXT: return %[[C]]
func.func @fold_large_splat() -> tensor<64x128xf32> {
  %one = poot.constant dense<1.0> : tensor<64x128xf32>
  %four = poot.constant dense<4.0> : tensor<f32>
  %q = poot.div %one, %four : tensor<64x128xf32>, tensor<f32>
  return %q : tensor<64x128xf32>
}


// -----

// repeat_kv in the [B, L, H, D] layout under the head transpose: the
// transpose moves above the repeat, which is then on the head axis 1.
// CHECK-LABEL: func.func @transpose_above_repeat
// CHECK: %[[T:.+]] = poot.transpose %arg0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xf32>
// CHECK: %[[R:.+]] = poot.reshape %[[T]] : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
// CHECK: %[[B:.+]] = poot.broadcast %[[R]] {shape = array<i64: 1, 2, 2, 8, 16>}
// CHECK: %[[K:.+]] = poot.reshape %[[B]] : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK: return %[[K]]
func.func @transpose_above_repeat(%k: tensor<1x8x2x16xf32>) -> tensor<1x4x8x16xf32> {
  %k5 = poot.reshape %k : tensor<1x8x2x16xf32> -> tensor<1x8x2x1x16xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 8, 2, 2, 16>} : tensor<1x8x2x1x16xf32>
  %kr = poot.reshape %kb : tensor<1x8x2x2x16xf32> -> tensor<1x8x4x16xf32>
  %kh = poot.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xf32>
  return %kh : tensor<1x4x8x16xf32>
}

// -----

// A head gather under a transpose: the gather moves to the transposed axis.
// CHECK-LABEL: func.func @transpose_above_gather
// CHECK: %[[I:.+]] = poot.constant dense<[1, 0, 1, 0]>
// CHECK: %[[T:.+]] = poot.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x2x16xf32>
// CHECK: %[[G:.+]] = poot.gather %[[T]][%[[I]]] {axis = 1 : i64} : tensor<1x2x16x8xf32>
// CHECK: return %[[G]]
func.func @transpose_above_gather(%k: tensor<1x8x2x16xf32>) -> tensor<1x4x16x8xf32> {
  %idx = poot.constant dense<[1, 0, 1, 0]> : tensor<4xi32>
  %kg = poot.gather %k[%idx] {axis = 2 : i64} : tensor<1x8x2x16xf32>, tensor<4xi32>
  %kt = poot.transpose %kg {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x4x16xf32>
  return %kt : tensor<1x4x16x8xf32>
}

// -----

// An elementwise op whose other operand does not vary along the heads
// (cos [1, 1, L, D]) and a slice that keeps every head move above the
// repeat; a splat factor stays below it (the layout ops hoist above scalar
// ops the other way).
// CHECK-LABEL: func.func @sink_repeat
// CHECK-DAG: %[[C:.+]] = poot.constant dense<5.000000e-01>
// CHECK-DAG: %[[R:.+]] = poot.reshape %arg0 : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
// CHECK-DAG: %[[M:.+]] = poot.mul %arg0, %arg1 : tensor<1x2x8x16xf32>, tensor<1x1x8x16xf32>
// CHECK: %[[MR:.+]] = poot.reshape %[[M]] : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
// CHECK: %[[MB:.+]] = poot.broadcast %[[MR]]
// CHECK: %[[A:.+]] = poot.reshape %[[MB]] : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK: %[[S:.+]] = poot.slice %arg0 {limit = array<i64: 1, 2, 8, 8>
// CHECK: %[[SR:.+]] = poot.reshape %[[S]] : tensor<1x2x8x8xf32> -> tensor<1x2x1x8x8xf32>
// CHECK: %[[SB:.+]] = poot.broadcast %[[SR]]
// CHECK: %[[SL:.+]] = poot.reshape %[[SB]] : tensor<1x2x2x8x8xf32> -> tensor<1x4x8x8xf32>
// CHECK: %[[D:.+]] = poot.mul %{{.+}}, %[[C]] : tensor<1x4x8x16xf32>, tensor<f32>
// CHECK: return %[[A]], %[[SL]], %[[D]]
func.func @sink_repeat(%k: tensor<1x2x8x16xf32>, %cos: tensor<1x1x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) {
  %k5 = poot.reshape %k : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
  %a = poot.mul %kr, %cos : tensor<1x4x8x16xf32>, tensor<1x1x8x16xf32>
  %b = poot.slice %kr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x8x16xf32>
  %c = poot.constant dense<0.5> : tensor<f32>
  %d = poot.mul %kr, %c : tensor<1x4x8x16xf32>, tensor<f32>
  return %a, %b, %d : tensor<1x4x8x16xf32>, tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>
}

// -----

// A value varying along the heads ([1, 4, 8, 16]) keeps the repeat where
// it is.
// CHECK-LABEL: func.func @sink_repeat_per_head
// CHECK: %[[K:.+]] = poot.reshape %{{.+}} : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK: %[[A:.+]] = poot.mul %[[K]], %arg1 : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
// CHECK: return %[[A]]
func.func @sink_repeat_per_head(%k: tensor<1x2x8x16xf32>, %t: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %k5 = poot.reshape %k : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
  %a = poot.mul %kr, %t : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
  return %a : tensor<1x4x8x16xf32>
}

// -----

// A repeat on the flattened [B * Hkv, L, D] viewed as [B, Hq, L, D]: the
// broadcast splits with the view, a repeat on the head axis.
// CHECK-LABEL: func.func @split_broadcast_at_reshape
// CHECK: %[[R:.+]] = poot.reshape %arg0 : tensor<4x8x16xf32> -> tensor<2x2x1x8x16xf32>
// CHECK: %[[B:.+]] = poot.broadcast %[[R]] {shape = array<i64: 2, 2, 4, 8, 16>}
// CHECK: %[[K:.+]] = poot.reshape %[[B]] : tensor<2x2x4x8x16xf32> -> tensor<2x8x8x16xf32>
// CHECK: return %[[K]]
func.func @split_broadcast_at_reshape(%k: tensor<4x8x16xf32>) -> tensor<2x8x8x16xf32> {
  %k1 = poot.reshape %k : tensor<4x8x16xf32> -> tensor<4x1x8x16xf32>
  %kb = poot.broadcast %k1 {shape = array<i64: 4, 4, 8, 16>} : tensor<4x1x8x16xf32>
  %kr = poot.reshape %kb : tensor<4x4x8x16xf32> -> tensor<2x8x8x16xf32>
  return %kr : tensor<2x8x8x16xf32>
}

// -----

// A gather on the flattened batch that keeps each row's heads in the row
// is a gather of the heads; one whose index crosses rows stays.
// CHECK-LABEL: func.func @reshape_splits_gather
// CHECK-DAG: %[[M:.+]] = poot.constant dense<[1, 0, 1, 0]> : tensor<4xi64>
// CHECK-DAG: %[[X:.+]] = poot.constant dense<[0, 1, 2, 3, 0, 1, 2, 3]> : tensor<8xi32>
// CHECK: %[[R:.+]] = poot.reshape %arg0 : tensor<4x8x16xf32> -> tensor<2x2x8x16xf32>
// CHECK: %[[A:.+]] = poot.gather %[[R]][%[[M]]] {axis = 1 : i64}
// CHECK: %[[G:.+]] = poot.gather %arg0[%[[X]]] {axis = 0 : i64}
// CHECK: %[[B:.+]] = poot.reshape %[[G]] : tensor<8x8x16xf32> -> tensor<2x4x8x16xf32>
// CHECK: return %[[A]], %[[B]]
func.func @reshape_splits_gather(%k: tensor<4x8x16xf32>) -> (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) {
  %i = poot.constant dense<[1, 0, 1, 0, 3, 2, 3, 2]> : tensor<8xi32>
  %g = poot.gather %k[%i] {axis = 0 : i64} : tensor<4x8x16xf32>, tensor<8xi32>
  %a = poot.reshape %g : tensor<8x8x16xf32> -> tensor<2x4x8x16xf32>
  %j = poot.constant dense<[0, 1, 2, 3, 0, 1, 2, 3]> : tensor<8xi32>
  %h = poot.gather %k[%j] {axis = 0 : i64} : tensor<4x8x16xf32>, tensor<8xi32>
  %b = poot.reshape %h : tensor<8x8x16xf32> -> tensor<2x4x8x16xf32>
  return %a, %b : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
}

// -----

// Copies of one tensor concatenated: on a unit axis a broadcast, whole
// copies a gather (tiled), unit slices a gather by the heads they name
// (here h / 2, so the repeat); a concat of two tensors stays.
// CHECK-LABEL: func.func @concat_of_copies
// CHECK-DAG: %[[TILE:.+]] = poot.constant dense<[0, 1, 0, 1]> : tensor<4xi64>
// CHECK: %[[U:.+]] = poot.reshape %arg0 : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
// CHECK: %[[A:.+]] = poot.broadcast %[[U]] {shape = array<i64: 1, 2, 3, 8, 16>}
// CHECK: %[[B:.+]] = poot.gather %arg0[%[[TILE]]] {axis = 1 : i64}
// CHECK: %[[RB:.+]] = poot.broadcast %[[U]] {shape = array<i64: 1, 2, 2, 8, 16>}
// CHECK: %[[C:.+]] = poot.reshape %[[RB]] : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK: %[[D:.+]] = poot.concat %arg0, %arg1 {axis = 1 : i64}
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]]
func.func @concat_of_copies(%k: tensor<1x2x8x16xf32>, %x: tensor<1x2x8x16xf32>) -> (tensor<1x2x3x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %k5 = poot.reshape %k : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %a = poot.concat %k5, %k5, %k5 {axis = 2 : i64} : tensor<1x2x1x8x16xf32>, tensor<1x2x1x8x16xf32>, tensor<1x2x1x8x16xf32>
  %b = poot.concat %k, %k {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  %k0 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x16xf32>
  %k1 = poot.slice %k {start = array<i64: 0, 1, 0, 0>, limit = array<i64: 1, 2, 8, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x8x16xf32>
  %c = poot.concat %k0, %k0, %k1, %k1 {axis = 1 : i64} : tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32>
  %d = poot.concat %k, %x {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
  return %a, %b, %c, %d : tensor<1x2x3x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// Gathers by constant indices: the arange of the whole axis (any index
// shape) reshapes; a scalar index is a slice; a slice of a concat inside
// one piece is a slice of the piece.
// CHECK-LABEL: func.func @gather_constant_index
// CHECK: %[[A:.+]] = poot.reshape %arg0 : tensor<6x1xi1> -> tensor<2x1x3x1xi1>
// CHECK: %[[B:.+]] = poot.reshape %arg1 : tensor<1xi64> -> tensor<i64>
// CHECK-NOT: poot.{{gather|concat}}
// CHECK: return %[[A]], %[[B]]
func.func @gather_constant_index(%m: tensor<6x1xi1>, %s: tensor<1xi64>) -> (tensor<2x1x3x1xi1>, tensor<i64>) {
  %i = poot.constant dense<[[[0, 1, 2]], [[3, 4, 5]]]> : tensor<2x1x3xi64>
  %a = poot.gather %m[%i] {axis = 0 : i64} : tensor<6x1xi1>, tensor<2x1x3xi64>
  %c = poot.constant dense<7> : tensor<2xi64>
  %cat = poot.concat %c, %s {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %b = poot.gather %cat[%two] {axis = 0 : i64} : tensor<3xi64>, tensor<i64>
  return %a, %b : tensor<2x1x3x1xi1>, tensor<i64>
}

// -----

// Integer constants that are an arange along one axis (ONNX Range) become
// iotas, with their step and offset, where index arithmetic reads them; a
// table converted to float (RoPE positions) stays, and so does a constant
// that is no arange.
// CHECK-LABEL: func.func @arange_to_iota
// CHECK-DAG: %[[F:.+]] = poot.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[FIVE:.+]] = poot.constant dense<5> : tensor<i64>
// CHECK-DAG: %[[TWO:.+]] = poot.constant dense<2> : tensor<i64>
// CHECK-DAG: %[[ODD:.+]] = poot.constant dense<[0, 1, 3, 4]> : tensor<4xi64>
// CHECK-DAG: %[[I:.+]] = poot.iota {dim = 0 : i64} : tensor<3xi64>
// CHECK-DAG: %[[STEP:.+]] = poot.mul %[[I]], %[[TWO]]
// CHECK-DAG: %[[ROWS:.+]] = poot.add %[[STEP]], %[[FIVE]]
// CHECK-DAG: %[[KEYS:.+]] = poot.iota {dim = 3 : i64} : tensor<1x1x1x6xi64>
// CHECK-DAG: %[[A:.+]] = poot.compare le, %[[KEYS]], %[[TWO]]
// CHECK-DAG: %[[B:.+]] = poot.add %[[ROWS]], %arg0
// CHECK-DAG: %[[D:.+]] = poot.compare le, %[[ODD]], %[[TWO]]
// CHECK: return %[[A]], %[[B]], %[[F]], %[[D]]
func.func @arange_to_iota(%p: tensor<i64>) -> (tensor<1x1x1x6xi1>, tensor<3xi64>, tensor<4xf32>, tensor<4xi1>) {
  %keys = poot.constant dense<[[[[0, 1, 2, 3, 4, 5]]]]> : tensor<1x1x1x6xi64>
  %z = poot.constant dense<2> : tensor<i64>
  %a = poot.compare le, %keys, %z : tensor<1x1x1x6xi64>, tensor<i64>
  %rows = poot.constant dense<[5, 7, 9]> : tensor<3xi64>
  %b = poot.add %rows, %p : tensor<3xi64>, tensor<i64>
  %pos = poot.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %c = poot.convert %pos : tensor<4xi64> -> tensor<4xf32>
  %odd = poot.constant dense<[0, 1, 3, 4]> : tensor<4xi64>
  %d = poot.compare le, %odd, %z : tensor<4xi64>, tensor<i64>
  return %a, %b, %c, %d : tensor<1x1x1x6xi1>, tensor<3xi64>, tensor<4xf32>, tensor<4xi1>
}

// -----

// Falcon's (mask * 1.0).masked_fill(mask, -1e9): where the select takes
// convert(mask) the mask is false, so that side is 0 (and 1 on the true
// side). A converted other condition stays.
// CHECK-LABEL: func.func @select_of_own_indicator
// CHECK-DAG: %[[Z:.+]] = poot.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[F:.+]] = poot.constant dense<-1.000000e+09> : tensor<f32>
// CHECK-DAG: %[[ONE:.+]] = poot.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG: %[[A:.+]] = poot.select %arg0, %[[F]], %[[Z]] : tensor<4x4xi1>, tensor<f32>, tensor<f32>
// CHECK-DAG: %[[B:.+]] = poot.select %arg0, %[[ONE]], %[[F]] : tensor<4x4xi1>, tensor<f32>, tensor<f32>
// CHECK-DAG: %[[OC:.+]] = poot.convert %arg1
// CHECK-DAG: %[[C:.+]] = poot.select %arg0, %[[F]], %[[OC]]
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @select_of_own_indicator(%m: tensor<4x4xi1>, %o: tensor<4x4xi1>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %f = poot.constant dense<-1.0e9> : tensor<f32>
  %mf = poot.convert %m : tensor<4x4xi1> -> tensor<4x4xf32>
  %a = poot.select %m, %f, %mf : tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>
  %b = poot.select %m, %mf, %f : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32>
  %of = poot.convert %o : tensor<4x4xi1> -> tensor<4x4xf32>
  %c = poot.select %m, %f, %of : tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>
  return %a, %b, %c : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Boolean bookkeeping: a 0/1 integer cast back to bool is the condition,
// (c ? 1 : 0) == 0 is not c, and `and` with true is the other side.
// CHECK-LABEL: func.func @bool_folds
// CHECK: %[[C:.+]] = poot.compare lt, %arg0, %arg1
// CHECK: %[[N:.+]] = poot.not %[[C]]
// CHECK-NOT: poot.{{select|convert|and}}
// CHECK: return %[[C]], %[[N]], %[[C]]
func.func @bool_folds(%x: tensor<4xi64>, %y: tensor<4xi64>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %c = poot.compare lt, %x, %y : tensor<4xi64>, tensor<4xi64>
  %one = poot.constant dense<1> : tensor<4xi64>
  %zero = poot.constant dense<0> : tensor<4xi64>
  %s = poot.select %c, %one, %zero : tensor<4xi1>, tensor<4xi64>, tensor<4xi64>
  %a = poot.convert %s : tensor<4xi64> -> tensor<4xi1>
  %z = poot.constant dense<0> : tensor<i64>
  %b = poot.compare eq, %s, %z : tensor<4xi64>, tensor<i64>
  %t = poot.constant dense<true> : tensor<i1>
  %d = poot.and %t, %c : tensor<i1>, tensor<4xi1>
  return %a, %b, %d : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// A reshape that moves unit dims between the non-unit ones of a condition
// goes to the compare's operands (the mask readers then see them in the
// frame of the scores); one adding leading unit dims only stays.
// CHECK-LABEL: func.func @unit_reshape_of_condition
// CHECK: %[[C:.+]] = poot.compare lt, %arg0, %arg1 : tensor<2x6xi64>
// CHECK-DAG: %[[X:.+]] = poot.reshape %arg0 : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
// CHECK-DAG: %[[Y:.+]] = poot.reshape %arg1 : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
// CHECK: %[[A:.+]] = poot.compare lt, %[[X]], %[[Y]] : tensor<2x1x1x6xi64>
// CHECK: %[[B:.+]] = poot.reshape %[[C]] : tensor<2x6xi1> -> tensor<1x1x2x6xi1>
// CHECK: return %[[A]], %[[B]]
func.func @unit_reshape_of_condition(%x: tensor<2x6xi64>, %y: tensor<2x6xi64>) -> (tensor<2x1x1x6xi1>, tensor<1x1x2x6xi1>) {
  %c = poot.compare lt, %x, %y : tensor<2x6xi64>, tensor<2x6xi64>
  %a = poot.reshape %c : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
  %b = poot.reshape %c : tensor<2x6xi1> -> tensor<1x1x2x6xi1>
  return %a, %b : tensor<2x1x1x6xi1>, tensor<1x1x2x6xi1>
}

// -----

// A tril table sliced at a run-time row: the compare of indices it
// tabulates, t - (i + pos) <= 0, with pos's declared range proving the
// start inside the table (no clamp). Sliced further than the range allows,
// the clamp of dynamic_slice is written out. A table that is no band stays.
// The indices are in the starts' type (i32 here: a device without 64-bit
// integers reads them).
// CHECK-LABEL: func.func @band_table
// CHECK-DAG: %[[HI:.+]] = poot.constant dense<2> : tensor<i32>
// CHECK-DAG: %[[ZERO:.+]] = poot.constant dense<0> : tensor<i32>
// CHECK: %[[T:.+]] = poot.iota {dim = 1 : i64} : tensor<1x4xi32>
// CHECK: %[[I:.+]] = poot.iota {dim = 0 : i64} : tensor<2x1xi32>
// CHECK: %[[QP:.+]] = poot.add %[[I]], %arg0
// CHECK: %[[D:.+]] = poot.sub %[[T]], %[[QP]]
// CHECK: %[[A:.+]] = poot.compare le, %[[D]], %[[ZERO]] : tensor<2x4xi32>
// CHECK: %[[MIN:.+]] = poot.min %arg1, %[[HI]]
// CHECK: %[[MAX:.+]] = poot.max %[[MIN]], %[[ZERO]]
// CHECK: %[[QF:.+]] = poot.add %{{.+}}, %[[MAX]]
// CHECK: %[[DF:.+]] = poot.sub %{{.+}}, %[[QF]]
// CHECK: %[[B:.+]] = poot.compare le, %[[DF]], %[[ZERO]] : tensor<2x4xi32>
// CHECK: %[[C:.+]] = poot.dynamic_slice
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @band_table(%pos: tensor<i32> {poot.range = array<i64: 0, 3>}, %far: tensor<i32> {poot.range = array<i64: 0, 4>}) -> (tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>) {
  %tril = poot.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %zero = poot.constant dense<0> : tensor<i32>
  %a = poot.dynamic_slice %tril[%pos, %zero] {sizes = array<i64: 2, 4>} : tensor<4x4xi1>, tensor<i32>, tensor<i32>
  %b = poot.dynamic_slice %tril[%far, %zero] {sizes = array<i64: 2, 4>} : tensor<4x4xi1>, tensor<i32>, tensor<i32>
  %odd = poot.constant dense<[[true, false, false, false], [true, true, false, false], [false, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %c = poot.dynamic_slice %odd[%pos, %zero] {sizes = array<i64: 2, 4>} : tensor<4x4xi1>, tensor<i32>, tensor<i32>
  return %a, %b, %c : tensor<2x4xi1>, tensor<2x4xi1>, tensor<2x4xi1>
}

// -----

// reshape(transpose(reshape(x))) whose reshapes only move unit dims is one
// transpose of x.
// CHECK-LABEL: func.func @transpose_between_unit_reshapes
// CHECK: %[[T:.+]] = poot.transpose %arg0 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x10x40xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_between_unit_reshapes(%k: tensor<2x1x10x40xf32>) -> tensor<2x1x40x10xf32> {
  %a = poot.reshape %k : tensor<2x1x10x40xf32> -> tensor<2x10x40xf32>
  %t = poot.transpose %a {perm = array<i64: 0, 2, 1>} : tensor<2x10x40xf32>
  %b = poot.reshape %t : tensor<2x40x10xf32> -> tensor<2x1x40x10xf32>
  return %b : tensor<2x1x40x10xf32>
}

// -----

// A transpose between unit reshapes that keeps the non-unit dims in order
// moves no data: one reshape.
// CHECK-LABEL: func.func @unit_transpose_in_order
// CHECK: %[[R:.+]] = poot.reshape %arg0 : tensor<1x2x2x12xf32> -> tensor<1x2x1x2x12xf32>
// CHECK-NEXT: return %[[R]]
func.func @unit_transpose_in_order(%x: tensor<1x2x2x12xf32>) -> tensor<1x2x1x2x12xf32> {
  %a = poot.reshape %x : tensor<1x2x2x12xf32> -> tensor<1x2x2x12x1xf32>
  %t = poot.transpose %a {perm = array<i64: 4, 0, 1, 2, 3>} : tensor<1x2x2x12x1xf32>
  %b = poot.reshape %t : tensor<1x1x2x2x12xf32> -> tensor<1x2x1x2x12xf32>
  return %b : tensor<1x2x1x2x12xf32>
}

// -----

// A convert of a broadcast is the broadcast of the convert; a compare of a
// broadcast with a splat likewise (the broadcast read once: a broadcast
// with another reader is left).
// CHECK-LABEL: func.func @convert_and_compare_of_broadcast
// CHECK: %[[C:.+]] = poot.convert %arg0 : tensor<6x6xbf16> -> tensor<6x6xf32>
// CHECK: %[[K:.+]] = poot.compare ge, %[[C]], %{{.+}} : tensor<6x6xf32>, tensor<f32>
// CHECK: poot.broadcast %[[K]] {shape = array<i64: 1, 4, 6, 6>} : tensor<6x6xi1>
func.func @convert_and_compare_of_broadcast(%m: tensor<6x6xbf16>) -> tensor<1x4x6x6xi1> {
  %b = poot.broadcast %m {shape = array<i64: 1, 4, 6, 6>} : tensor<6x6xbf16>
  %f = poot.convert %b : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %thr = poot.constant dense<-1.0e+38> : tensor<f32>
  %k = poot.compare ge, %f, %thr : tensor<1x4x6x6xf32>, tensor<f32>
  return %k : tensor<1x4x6x6xi1>
}

// CHECK-LABEL: func.func @compare_of_shared_broadcast_left
// CHECK: %[[B:.+]] = poot.broadcast %arg0
// CHECK: poot.compare ge, %[[B]]
func.func @compare_of_shared_broadcast_left(%m: tensor<6x6xf32>) -> (tensor<1x4x6x6xi1>, tensor<1x4x6x6xf32>) {
  %b = poot.broadcast %m {shape = array<i64: 1, 4, 6, 6>} : tensor<6x6xf32>
  %thr = poot.constant dense<0.0> : tensor<f32>
  %k = poot.compare ge, %b, %thr : tensor<1x4x6x6xf32>, tensor<f32>
  return %k, %b : tensor<1x4x6x6xi1>, tensor<1x4x6x6xf32>
}

// -----

// A transpose of merged dims, cut again only between the original dims, is
// a transpose of the original dims and a merge: [s, b, g, r, d] merged to
// [s, b*g*r, d], transposed and viewed [b, g*r, s, d] is the transpose to
// [b, g, r, s, d] and a merge of g and r.
// CHECK-LABEL: func.func @transpose_of_merged_dims
// CHECK: %[[T:.+]] = poot.transpose %arg0 {perm = array<i64: 1, 2, 3, 0, 4>} : tensor<5x2x3x4x8xf32>
// CHECK-NEXT: %[[R:.+]] = poot.reshape %[[T]] : tensor<2x3x4x5x8xf32> -> tensor<2x12x5x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @transpose_of_merged_dims(%x: tensor<5x2x3x4x8xf32>) -> tensor<2x12x5x8xf32> {
  %a = poot.reshape %x : tensor<5x2x3x4x8xf32> -> tensor<5x24x8xf32>
  %t = poot.transpose %a {perm = array<i64: 1, 0, 2>} : tensor<5x24x8xf32>
  %b = poot.reshape %t : tensor<24x5x8xf32> -> tensor<2x12x5x8xf32>
  return %b : tensor<2x12x5x8xf32>
}

// -----

// Left alone: the second reshape cuts the merged dim of 24 = 2 * 3 * 4 as
// 4 * 6, between no original dims.
// CHECK-LABEL: func.func @transpose_of_merged_dims_cut_elsewhere
// CHECK: poot.reshape %arg0 : tensor<5x2x3x4x8xf32> -> tensor<5x24x8xf32>
// CHECK-NEXT: poot.transpose
// CHECK-NEXT: poot.reshape %{{.+}} : tensor<24x5x8xf32> -> tensor<4x6x5x8xf32>
func.func @transpose_of_merged_dims_cut_elsewhere(%x: tensor<5x2x3x4x8xf32>) -> tensor<4x6x5x8xf32> {
  %a = poot.reshape %x : tensor<5x2x3x4x8xf32> -> tensor<5x24x8xf32>
  %t = poot.transpose %a {perm = array<i64: 1, 0, 2>} : tensor<5x24x8xf32>
  %b = poot.reshape %t : tensor<24x5x8xf32> -> tensor<4x6x5x8xf32>
  return %b : tensor<4x6x5x8xf32>
}

// -----

// The log of a select with a constant side is the select of the logs; the
// log of a bool converted to a number is select(c, 0, -inf).
// CHECK-LABEL: func.func @log_of_select
// CHECK: %[[A:.+]] = poot.select %arg0, %{{.+}}, %{{.+}} : tensor<4x4xi1>
// CHECK-NOT: poot.log
// CHECK: return
func.func @log_of_select(%c: tensor<4x4xi1>) -> tensor<4x4xf32> {
  %v = poot.convert %c : tensor<4x4xi1> -> tensor<4x4xf32>
  %l = poot.log %v : tensor<4x4xf32>
  return %l : tensor<4x4xf32>
}

// -----

// The normaliser after P . V in the output layout: the exp's row sum
// divides the product, both moved alike, is the product of the
// probabilities moved the same way.
// CHECK-LABEL: func.func @normaliser_after_product
// CHECK: %[[E:.+]] = poot.exp
// CHECK: %[[Z:.+]] = poot.reduce_sum %[[E]] {axis = 3 : i64, keepdim}
// CHECK: %[[P:.+]] = poot.div %[[E]], %[[Z]] : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
// CHECK: %[[O:.+]] = poot.matmul %[[P]], %arg1
// CHECK: %[[T:.+]] = poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NOT: poot.div
// CHECK: return
func.func @normaliser_after_product(%s: tensor<1x2x6x6xf32>, %v: tensor<1x2x6x16xf32>) -> tensor<1x6x32xf32> {
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %o = poot.matmul %e, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x16xf32>
  %zt = poot.transpose %z {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x1xf32>
  %n = poot.div %ot, %zt : tensor<1x6x2x16xf32>, tensor<1x6x2x1xf32>
  %r = poot.reshape %n : tensor<1x6x2x16xf32> -> tensor<1x6x32xf32>
  return %r : tensor<1x6x32xf32>
}

// -----

// A scaled value behind a head repeat: the layout ops hoist above the scale
// (x * c moves after them) and the head map stays where it is; no pattern
// builds ops and then declines (which would leave the driver erasing them
// and running again until it gives up).
// CHECK-LABEL: func.func @scale_behind_head_repeat
// CHECK: %[[R:.+]] = poot.reshape %arg0 : tensor<2x5x3x4xf32> -> tensor<2x1x5x12xf32>
// CHECK-NEXT: %[[B:.+]] = poot.broadcast %[[R]] {shape = array<i64: 2, 4, 5, 12>}
// CHECK-NEXT: %[[M:.+]] = poot.reshape %[[B]] : tensor<2x4x5x12xf32> -> tensor<8x5x12xf32>
// CHECK-NEXT: poot.div %{{.+}}, %[[M]]
func.func @scale_behind_head_repeat(%x: tensor<2x5x3x4xf32>) -> tensor<8x5x12xi1> {
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %x : tensor<f32>, tensor<2x5x3x4xf32>
  %flat = poot.reshape %r : tensor<2x5x3x4xf32> -> tensor<2x1x5x12xf32>
  %rep = poot.broadcast %flat {shape = array<i64: 2, 4, 5, 12>} : tensor<2x1x5x12xf32>
  %rep3 = poot.reshape %rep : tensor<2x4x5x12xf32> -> tensor<8x5x12xf32>
  %half = poot.constant dense<0.5> : tensor<f32>
  %lt = poot.compare lt, %rep3, %half : tensor<8x5x12xf32>, tensor<f32>
  return %lt : tensor<8x5x12xi1>
}

// -----

// abs of a sum of exps is the sum (jax.scipy.special.logsumexp takes it);
// abs of a value of either sign stays.
// CHECK-LABEL: func.func @abs_of_nonnegative
// CHECK: %[[E:.+]] = poot.exp %arg0
// CHECK-NEXT: %[[S:.+]] = poot.reduce_sum %[[E]]
// CHECK-NEXT: %[[L:.+]] = poot.log %[[S]]
// CHECK-NEXT: %[[A:.+]] = poot.abs %arg0
// CHECK-NEXT: return %[[L]], %[[A]]
func.func @abs_of_nonnegative(%x: tensor<2x8xf32>) -> (tensor<2x1xf32>, tensor<2x8xf32>) {
  %e = poot.exp %x : tensor<2x8xf32>
  %s = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<2x8xf32>
  %a = poot.abs %s : tensor<2x1xf32>
  %l = poot.log %a : tensor<2x1xf32>
  %b = poot.abs %x : tensor<2x8xf32>
  return %l, %b : tensor<2x1xf32>, tensor<2x8xf32>
}

// -----

// A penalty subtracted from the scores, x - c * y with a splat c, is the sum
// x + (-c) * y (exact); a product of two tensors stays a subtraction.
// CHECK-LABEL: func.func @sub_of_scaled
// CHECK-DAG: %[[C:.+]] = poot.constant dense<-1.000000e+06> : tensor<f32>
// CHECK: %[[P:.+]] = poot.mul %[[C]], %arg1
// CHECK: %[[A:.+]] = poot.add %arg0, %[[P]]
// CHECK: %[[Q:.+]] = poot.mul %arg1, %arg1
// CHECK: %[[B:.+]] = poot.sub %arg0, %[[Q]]
// CHECK: return %[[A]], %[[B]]
func.func @sub_of_scaled(%s: tensor<2x4x4xf32>, %m: tensor<2x1x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>) {
  %big = poot.constant dense<1.0e+06> : tensor<f32>
  %pen = poot.mul %big, %m : tensor<f32>, tensor<2x1x4xf32>
  %a = poot.sub %s, %pen : tensor<2x4x4xf32>, tensor<2x1x4xf32>
  %sq = poot.mul %m, %m : tensor<2x1x4xf32>, tensor<2x1x4xf32>
  %b = poot.sub %s, %sq : tensor<2x4x4xf32>, tensor<2x1x4xf32>
  return %a, %b : tensor<2x4x4xf32>, tensor<2x4x4xf32>
}

// -----

// A power-of-two scale before a widening convert moves after it; a scale
// of 1/3 (rounded in bf16) and a narrowing convert stay.
// CHECK-LABEL: func.func @convert_of_power_of_two_scale
// CHECK: %[[W:.+]] = poot.convert %arg0 : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK: %[[A:.+]] = poot.mul %[[W]], %{{.+}} : tensor<4x8xf32>, tensor<f32>
// CHECK: %[[T:.+]] = poot.mul %arg0, %{{.+}} : tensor<4x8xbf16>, tensor<bf16>
// CHECK: %[[B:.+]] = poot.convert %[[T]] : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK: %[[N:.+]] = poot.mul %arg1, %{{.+}} : tensor<4x8xf32>, tensor<f32>
// CHECK: %[[C:.+]] = poot.convert %[[N]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @convert_of_power_of_two_scale(%q: tensor<4x8xbf16>, %x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>) {
  %quarter = poot.constant dense<0.25> : tensor<bf16>
  %qs = poot.mul %q, %quarter : tensor<4x8xbf16>, tensor<bf16>
  %a = poot.convert %qs : tensor<4x8xbf16> -> tensor<4x8xf32>
  %third = poot.constant dense<0.333333343> : tensor<bf16>
  %qt = poot.mul %q, %third : tensor<4x8xbf16>, tensor<bf16>
  %b = poot.convert %qt : tensor<4x8xbf16> -> tensor<4x8xf32>
  %half = poot.constant dense<0.5> : tensor<f32>
  %xs = poot.mul %x, %half : tensor<4x8xf32>, tensor<f32>
  %c = poot.convert %xs : tensor<4x8xf32> -> tensor<4x8xbf16>
  return %a, %b, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xbf16>
}

// -----

// (1 - convert(c)) * F is select(c, 0, F); a reshape inserting a unit dim
// behind a broadcast condition moves under the broadcast. A complement of
// a float tensor that is no indicator stays arithmetic.
// CHECK-LABEL: func.func @fill_times_complement
// CHECK: %[[C:.+]] = poot.compare le, %arg0, %arg1
// CHECK: %[[R:.+]] = poot.reshape %[[C]] : tensor<1x1x8xi1> -> tensor<1x1x1x8xi1>
// CHECK: %[[SR:.+]] = poot.select %[[R]], %{{.+}}, %{{.+}} : tensor<1x1x1x8xi1>, tensor<f16>, tensor<f16>
// CHECK: %[[S:.+]] = poot.broadcast %[[SR]] {shape = array<i64: 2, 1, 1, 8>}
// CHECK: %[[N:.+]] = poot.sub %{{.+}}, %arg2
// CHECK: %[[M:.+]] = poot.mul %[[N]], %{{.+}}
// CHECK: return %[[S]], %[[M]]
func.func @fill_times_complement(%t: tensor<1x1x8xi32>, %p: tensor<1x1x1xi32>, %f: tensor<2x1x1x8xf16>) -> (tensor<2x1x1x8xf16>, tensor<2x1x1x8xf16>) {
  %c = poot.compare le, %t, %p : tensor<1x1x8xi32>, tensor<1x1x1xi32>
  %b = poot.broadcast %c {shape = array<i64: 2, 1, 8>} : tensor<1x1x8xi1>
  %bf = poot.convert %b : tensor<2x1x8xi1> -> tensor<2x1x8xf16>
  %b4 = poot.reshape %bf : tensor<2x1x8xf16> -> tensor<2x1x1x8xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %inv = poot.sub %one, %b4 : tensor<f16>, tensor<2x1x1x8xf16>
  %min = poot.constant dense<-6.550400e+04> : tensor<f16>
  %a = poot.mul %inv, %min : tensor<2x1x1x8xf16>, tensor<f16>
  %finv = poot.sub %one, %f : tensor<f16>, tensor<2x1x1x8xf16>
  %m = poot.mul %finv, %min : tensor<2x1x1x8xf16>, tensor<f16>
  return %a, %m : tensor<2x1x1x8xf16>, tensor<2x1x1x8xf16>
}

// -----

// A min with a select of the type's bounds is the select: the top leaves
// the scores, the bottom replaces them (the lowest finite bottom only
// under a clamp at it, so no score lies below). Without the clamp the
// lowest finite bottom stays a min (a -inf score would become -65504).
// A select of a clamp and its bound takes the clamp outside.
// (The first then takes its clamp outside as the third does.)
// CHECK-LABEL: func.func @min_of_bound_select
// CHECK: %[[L:.+]] = poot.constant dense<-6.550400e+04> : tensor<f16>
// CHECK: %[[S:.+]] = poot.select %arg1, %[[L]], %arg0
// CHECK: %[[A:.+]] = poot.max %[[S]], %[[L]]
// CHECK: %[[N:.+]] = poot.min %arg0, %{{.+}}
// CHECK: %[[T:.+]] = poot.select %arg1, %arg0, %[[L]]
// CHECK: %[[C:.+]] = poot.max %[[T]], %[[L]]
// CHECK: return %[[A]], %[[N]], %[[C]]
func.func @min_of_bound_select(%s: tensor<2x4x4xf16>, %c: tensor<4x4xi1>) -> (tensor<2x4x4xf16>, tensor<2x4x4xf16>, tensor<2x4x4xf16>) {
  %lo = poot.constant dense<-6.550400e+04> : tensor<f16>
  %hi = poot.constant dense<6.550400e+04> : tensor<f16>
  %t = poot.select %c, %lo, %hi : tensor<4x4xi1>, tensor<f16>, tensor<f16>
  %tb = poot.broadcast %t {shape = array<i64: 1, 4, 4>} : tensor<4x4xf16>
  %m = poot.max %s, %lo : tensor<2x4x4xf16>, tensor<f16>
  %a = poot.min %m, %tb : tensor<2x4x4xf16>, tensor<1x4x4xf16>
  %b = poot.min %s, %tb : tensor<2x4x4xf16>, tensor<1x4x4xf16>
  %cl = poot.max %s, %lo : tensor<2x4x4xf16>, tensor<f16>
  %d = poot.select %c, %cl, %lo : tensor<4x4xi1>, tensor<2x4x4xf16>, tensor<f16>
  return %a, %b, %d : tensor<2x4x4xf16>, tensor<2x4x4xf16>, tensor<2x4x4xf16>
}

// -----

// Halves stacked as (real, imag) pairs, converted, then taken apart by
// slices and put back in half order: the concat of the halves, converted.
// A concat of converts from two types stays.
// CHECK-LABEL: func.func @stacked_pairs_taken_apart
// CHECK: %[[C:.+]] = poot.concat %arg0, %arg1 {axis = 2 : i64} : tensor<2x3x4xf32>, tensor<2x3x4xf32>
// CHECK: %[[V:.+]] = poot.convert %[[C]] : tensor<2x3x8xf32> -> tensor<2x3x8xbf16>
// CHECK: %[[M:.+]] = poot.concat %{{.+}}, %{{.+}} {axis = 2 : i64} : tensor<2x3x4xbf16>, tensor<2x3x4xbf16>
// CHECK: return %[[V]], %[[M]]
func.func @stacked_pairs_taken_apart(%re: tensor<2x3x4xf32>, %im: tensor<2x3x4xf32>, %h: tensor<2x3x4xf16>) -> (tensor<2x3x8xbf16>, tensor<2x3x8xbf16>) {
  %re5 = poot.reshape %re : tensor<2x3x4xf32> -> tensor<2x3x4x1xf32>
  %im5 = poot.reshape %im : tensor<2x3x4xf32> -> tensor<2x3x4x1xf32>
  %st = poot.concat %re5, %im5 {axis = 3 : i64} : tensor<2x3x4x1xf32>, tensor<2x3x4x1xf32>
  %sb = poot.convert %st : tensor<2x3x4x2xf32> -> tensor<2x3x4x2xbf16>
  %a = poot.slice %sb {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 3, 4, 1>, step = array<i64: 1, 1, 1, 1>} : tensor<2x3x4x2xbf16>
  %b = poot.slice %sb {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 2, 3, 4, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<2x3x4x2xbf16>
  %c = poot.concat %a, %b {axis = 2 : i64} : tensor<2x3x4x1xbf16>, tensor<2x3x4x1xbf16>
  %r = poot.reshape %c : tensor<2x3x8x1xbf16> -> tensor<2x3x8xbf16>
  %x = poot.convert %re : tensor<2x3x4xf32> -> tensor<2x3x4xbf16>
  %y = poot.convert %h : tensor<2x3x4xf16> -> tensor<2x3x4xbf16>
  %m = poot.concat %x, %y {axis = 2 : i64} : tensor<2x3x4xbf16>, tensor<2x3x4xbf16>
  return %r, %m : tensor<2x3x8xbf16>, tensor<2x3x8xbf16>
}

// -----

// A select takes its condition at the size it was built where its own
// broadcasting gives the same result; a negation moves under a broadcast
// and a reshape under a negation.
// CHECK-LABEL: func.func @condition_broadcasts_taken_by_select
// CHECK-SAME: %[[S:[^:]+]]: tensor<2x4x6x8xf32>, %[[C:[^:]+]]: tensor<2x1x1x8xi1>, %[[D:[^:]+]]: tensor<16xi1>
// CHECK: %[[N:.+]] = poot.not %[[C]] : tensor<2x1x1x8xi1>
// CHECK: %[[A:.+]] = poot.select %[[N]], %{{.+}}, %[[S]] : tensor<2x1x1x8xi1>, tensor<f32>, tensor<2x4x6x8xf32>
// The broadcast sets the result's shape here: it goes after the select
// (a select of splats is mask arithmetic).
// CHECK: %[[SB:.+]] = poot.select %[[C]], %{{.+}}, %{{.+}} : tensor<2x1x1x8xi1>, tensor<f32>, tensor<f32>
// CHECK: poot.broadcast %[[SB]] {shape = array<i64: 2, 4, 6, 8>}
// CHECK: %[[DR:.+]] = poot.reshape %[[D]] : tensor<16xi1> -> tensor<2x8xi1>
// CHECK: poot.not %[[DR]] : tensor<2x8xi1>
func.func @condition_broadcasts_taken_by_select(%s: tensor<2x4x6x8xf32>, %c: tensor<2x1x1x8xi1>, %d: tensor<16xi1>)
    -> (tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x8xi1>) {
  %neg = poot.constant dense<-1.0e+30> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %cb = poot.broadcast %c {shape = array<i64: 2, 4, 1, 8>} : tensor<2x1x1x8xi1>
  %nc = poot.not %cb : tensor<2x4x1x8xi1>
  %a = poot.select %nc, %neg, %s : tensor<2x4x1x8xi1>, tensor<f32>, tensor<2x4x6x8xf32>
  %cf = poot.broadcast %c {shape = array<i64: 2, 4, 6, 8>} : tensor<2x1x1x8xi1>
  %b = poot.select %cf, %neg, %zero : tensor<2x4x6x8xi1>, tensor<f32>, tensor<f32>
  %nd = poot.not %d : tensor<16xi1>
  %r = poot.reshape %nd : tensor<16xi1> -> tensor<2x8xi1>
  return %a, %b, %r : tensor<2x4x6x8xf32>, tensor<2x4x6x8xf32>, tensor<2x8xi1>
}

// -----

// A product over a merged batch is taken on the unmerged operands only when
// it is the scores' product; an MLP's bmm keeps its form.
// CHECK-LABEL: func.func @merged_batch_product_not_scores
// CHECK: poot.matmul %{{.+}}, %{{.+}} : tensor<8x6x16xf32>, tensor<8x16x5xf32>
func.func @merged_batch_product_not_scores(%a: tensor<2x4x6x16xf32>, %b: tensor<2x4x16x5xf32>) -> tensor<8x6x5xf32> {
  %a3 = poot.reshape %a : tensor<2x4x6x16xf32> -> tensor<8x6x16xf32>
  %b3 = poot.reshape %b : tensor<2x4x16x5xf32> -> tensor<8x16x5xf32>
  %m = poot.matmul %a3, %b3 : tensor<8x6x16xf32>, tensor<8x16x5xf32>
  return %m : tensor<8x6x5xf32>
}

// -----

// A bool converted to a number, offset by small integers, is a select of
// constants of that bool: compared with a constant it is the bool or its
// negation, and a select under that negation keeps the value it has there
// (Pix2Struct's masked_fill(1 - m == 1, min) of 1 - m). An offset that is
// no small integer stays a number.
// CHECK-LABEL: func.func @offset_indicator_read_as_condition
// CHECK-SAME: %[[C:[^:]+]]: tensor<2x8xi1>
// CHECK-DAG: %[[Z:.+]] = poot.constant dense<0.000000e+00> : tensor<2x4x8xf32>
// CHECK-DAG: %[[MIN:.+]] = poot.constant dense<-3.40282347E+38> : tensor<f32>
// CHECK: %[[R:.+]] = poot.reshape %[[C]] : tensor<2x8xi1> -> tensor<2x1x8xi1>
// CHECK: %[[N:.+]] = poot.not %[[R]] : tensor<2x1x8xi1>
// CHECK: poot.select %[[N]], %[[MIN]], %[[Z]] : tensor<2x1x8xi1>, tensor<f32>, tensor<2x4x8xf32>
// CHECK: %[[H:.+]] = poot.sub %{{.+}}, %{{.+}} : tensor<f32>, tensor<2x1x8xf32>
// CHECK: poot.compare eq, %[[H]], %{{.+}}
func.func @offset_indicator_read_as_condition(%c: tensor<2x8xi1>) -> (tensor<2x4x8xf32>, tensor<2x1x8xi1>) {
  %f = poot.convert %c : tensor<2x8xi1> -> tensor<2x8xf32>
  %r = poot.reshape %f : tensor<2x8xf32> -> tensor<2x1x8xf32>
  %zeros = poot.constant dense<0.0> : tensor<1x4x8xf32>
  %z = poot.add %zeros, %r : tensor<1x4x8xf32>, tensor<2x1x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %z : tensor<f32>, tensor<2x4x8xf32>
  %is1 = poot.compare eq, %inv, %one : tensor<2x4x8xf32>, tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %m = poot.select %is1, %min, %inv : tensor<2x4x8xi1>, tensor<f32>, tensor<2x4x8xf32>
  %half = poot.constant dense<0.5> : tensor<f32>
  %h = poot.sub %half, %r : tensor<f32>, tensor<2x1x8xf32>
  %hq = poot.compare eq, %h, %half : tensor<2x1x8xf32>, tensor<f32>
  return %m, %hq : tensor<2x4x8xf32>, tensor<2x1x8xi1>
}

// -----

// A gather of rows of an index expression by run-time indices is the
// expression at those indices; select(c, 1, 0) is the indicator of c. A
// gather of data stays.
// CHECK-LABEL: func.func @gathered_rows_of_index_expr
// CHECK-SAME: %[[P:[^:]+]]: tensor<2xi64>, %[[C:[^:]+]]: tensor<4x8xi1>, %[[T:[^:]+]]: tensor<8x8xi1>
// CHECK-DAG: %[[R:.+]] = poot.reshape %[[P]] : tensor<2xi64> -> tensor<2x1xi64>
// CHECK-DAG: %[[COL:.+]] = poot.iota {dim = 1 : i64} : tensor<2x8xi64>
// CHECK: %[[RB:.+]] = poot.broadcast %[[R]] {shape = array<i64: 2, 8>}
// CHECK: poot.compare le, %[[COL]], %[[RB]]
// CHECK: poot.convert %[[C]] : tensor<4x8xi1> -> tensor<4x8xf32>
// CHECK: poot.gather %[[T]][%[[P]]]
func.func @gathered_rows_of_index_expr(%pos: tensor<2xi64>, %c: tensor<4x8xi1>, %t: tensor<8x8xi1>)
    -> (tensor<2x8xi1>, tensor<4x8xf32>, tensor<2x8xi1>) {
  %r = poot.iota {dim = 0 : i64} : tensor<8x8xi64>
  %k = poot.iota {dim = 1 : i64} : tensor<8x8xi64>
  %tril = poot.compare le, %k, %r : tensor<8x8xi64>, tensor<8x8xi64>
  %rows = poot.gather %tril[%pos] {axis = 0 : i64} : tensor<8x8xi1>, tensor<2xi64>
  %one = poot.constant dense<1.0> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ind = poot.select %c, %one, %zero : tensor<4x8xi1>, tensor<f32>, tensor<f32>
  %data = poot.gather %t[%pos] {axis = 0 : i64} : tensor<8x8xi1>, tensor<2xi64>
  return %rows, %ind, %data : tensor<2x8xi1>, tensor<4x8xf32>, tensor<2x8xi1>
}

// -----

// A slice of a mask expanded over the batch, along an axis the broadcast
// keeps: the slice moves under the broadcast (and on to the iotas). A slice
// along an expanded axis stays.
// CHECK-LABEL: func.func @slice_under_broadcast
// CHECK-NOT: poot.slice %{{.+}} : tensor<2x1x4x5xi1>
// CHECK: poot.slice %{{.+}} {limit = array<i64: 1, 4, 5>, start = array<i64: 0, 0, 0>, step = array<i64: 1, 1, 1>} : tensor<2x4x5xf32>
func.func @slice_under_broadcast(%m: tensor<1x4x5xf32>) -> (tensor<2x1x4x4xi1>, tensor<1x4x5xf32>) {
  %r = poot.iota {dim = 0 : i64} : tensor<4x5xi64>
  %c = poot.iota {dim = 1 : i64} : tensor<4x5xi64>
  %le = poot.compare le, %c, %r : tensor<4x5xi64>, tensor<4x5xi64>
  %l4 = poot.reshape %le : tensor<4x5xi1> -> tensor<1x1x4x5xi1>
  %b = poot.broadcast %l4 {shape = array<i64: 2, 1, 4, 5>} : tensor<1x1x4x5xi1>
  %s = poot.slice %b {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 1, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<2x1x4x5xi1>
  %mb = poot.broadcast %m {shape = array<i64: 2, 4, 5>} : tensor<1x4x5xf32>
  %t = poot.slice %mb {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 4, 5>, step = array<i64: 1, 1, 1>} : tensor<2x4x5xf32>
  return %s, %t : tensor<2x1x4x4xi1>, tensor<1x4x5xf32>
}

// -----

// A reshape that splits the flattened batch of a sum of masks: each side
// follows it, a side of size 1 there staying 1 (PyTorch's
// multi_head_attention_forward adds [1, L, S] and [B H, 1, S] and views the
// sum as [B, H, L, S]). A side computed by a matmul is left alone.
// CHECK-LABEL: func.func @split_reshape_of_mask_sum
// CHECK-SAME: %[[A:[^:]+]]: tensor<1x6x6xf32>, %[[B:[^:]+]]: tensor<8x1x6xf32>
// CHECK-DAG: %[[A4:.+]] = poot.reshape %[[A]] : tensor<1x6x6xf32> -> tensor<1x1x6x6xf32>
// CHECK-DAG: %[[B4:.+]] = poot.reshape %[[B]] : tensor<8x1x6xf32> -> tensor<2x4x1x6xf32>
// CHECK: poot.add %[[A4]], %[[B4]] : tensor<1x1x6x6xf32>, tensor<2x4x1x6xf32>
// CHECK: %[[P:.+]] = poot.matmul
// CHECK: %[[S:.+]] = poot.add %[[P]], %[[B]] : tensor<8x6x6xf32>, tensor<8x1x6xf32>
// CHECK: poot.reshape %[[S]] : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
func.func @split_reshape_of_mask_sum(%a: tensor<1x6x6xf32>, %b: tensor<8x1x6xf32>,
    %q: tensor<8x6x4xf32>, %k: tensor<8x4x6xf32>) -> (tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>) {
  %s = poot.add %a, %b : tensor<1x6x6xf32>, tensor<8x1x6xf32>
  %r = poot.reshape %s : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  %p = poot.matmul %q, %k : tensor<8x6x4xf32>, tensor<8x4x6xf32>
  %ps = poot.add %p, %b : tensor<8x6x6xf32>, tensor<8x1x6xf32>
  %pr = poot.reshape %ps : tensor<8x6x6xf32> -> tensor<2x4x6x6xf32>
  return %r, %pr : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
}

// -----

// A splat times a select of small-integer constants (an indicator offset by
// one: Paddle's (cast(mask) - 1) * 1e9) is the select of the products; a
// splat times data stays.
// CHECK-LABEL: func.func @splat_times_offset_indicator
// CHECK-SAME: %[[C:[^:]+]]: tensor<4x4xi1>, %[[X:[^:]+]]: tensor<4x4xf32>
// CHECK-DAG: %[[Z:.+]] = poot.constant dense<0.000000e+00> : tensor<f32>
// CHECK-DAG: %[[F:.+]] = poot.constant dense<-1.000000e+09> : tensor<f32>
// CHECK: poot.select %[[C]], %[[Z]], %[[F]] : tensor<4x4xi1>, tensor<f32>, tensor<f32>
// CHECK: poot.mul %[[X]], %{{.+}} : tensor<4x4xf32>, tensor<f32>
func.func @splat_times_offset_indicator(%c: tensor<4x4xi1>, %x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %cf = poot.convert %c : tensor<4x4xi1> -> tensor<4x4xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %m1 = poot.sub %cf, %one : tensor<4x4xf32>, tensor<f32>
  %big = poot.constant dense<1.0e9> : tensor<f32>
  %r = poot.mul %m1, %big : tensor<4x4xf32>, tensor<f32>
  %d = poot.mul %x, %big : tensor<4x4xf32>, tensor<f32>
  return %r, %d : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A dynamic_update_slice of constants at constant starts is the constant
// it writes, the start clamped as the op clamps it (5 into [0, 2]).
// CHECK-LABEL: func.func @constant_dynamic_update_slice
// CHECK-NEXT: %[[C:.+]] = poot.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @constant_dynamic_update_slice() -> tensor<3x4xf32> {
  %base = poot.constant dense<0.0> : tensor<3x4xf32>
  %upd = poot.constant dense<1.0> : tensor<2x2xf32>
  %r = poot.constant dense<0> : tensor<i64>
  %c = poot.constant dense<5> : tensor<i64>
  %o = poot.dynamic_update_slice %base[%r, %c], %upd : tensor<3x4xf32>, tensor<2x2xf32>, tensor<i64>, tensor<i64>
  return %o : tensor<3x4xf32>
}

// -----

// Mask arithmetic over integers or bools (1 - mask, and the select of its
// fill) on a broadcast takes the broadcast off, computed on the elements
// it was built over (HF's _expand_mask); arithmetic on a broadcast float
// input stays.
// CHECK-LABEL: func.func @mask_arith_of_broadcast
// CHECK-SAME: %[[M:[^:]+]]: tensor<2x1x1x8xi64>, %[[X:[^:]+]]: tensor<2x1x1x8xf32>
// CHECK: %[[C:.+]] = poot.convert %[[M]] : tensor<2x1x1x8xi64> -> tensor<2x1x1x8xf32>
// CHECK: %[[S:.+]] = poot.sub %{{.+}}, %[[C]] : tensor<f32>, tensor<2x1x1x8xf32>
// CHECK: poot.broadcast %[[S]] {shape = array<i64: 2, 1, 8, 8>}
// CHECK: %[[XB:.+]] = poot.broadcast %[[X]] {shape = array<i64: 2, 1, 8, 8>}
// CHECK: poot.sub %{{.+}}, %[[XB]] : tensor<f32>, tensor<2x1x8x8xf32>
func.func @mask_arith_of_broadcast(%m: tensor<2x1x1x8xi64>, %x: tensor<2x1x1x8xf32>)
    -> (tensor<2x1x8x8xf32>, tensor<2x1x8x8xf32>) {
  %mb = poot.broadcast %m {shape = array<i64: 2, 1, 8, 8>} : tensor<2x1x1x8xi64>
  %mf = poot.convert %mb : tensor<2x1x8x8xi64> -> tensor<2x1x8x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %mf : tensor<f32>, tensor<2x1x8x8xf32>
  %xb = poot.broadcast %x {shape = array<i64: 2, 1, 8, 8>} : tensor<2x1x1x8xf32>
  %y = poot.sub %one, %xb : tensor<f32>, tensor<2x1x8x8xf32>
  return %inv, %y : tensor<2x1x8x8xf32>, tensor<2x1x8x8xf32>
}
