// RUN: poot-opt %s --split-input-file --canonicalize | FileCheck %s

// The trivial folds: identity layout ops vanish, reshape chains collapse,
// x + 0 and x * 1 are x, a select with a constant condition picks a side.

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.+]]: tensor<2x3xf32>)
func.func @identities(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = poot.transpose %x {perm = array<i64: 0, 1>} : tensor<2x3xf32>
  %1 = poot.broadcast %0 {shape = array<i64: 2, 3>} : tensor<2x3xf32>
  %2 = poot.reshape %1 : tensor<2x3xf32> -> tensor<2x3xf32>
  %3 = poot.convert %2 : tensor<2x3xf32> -> tensor<2x3xf32>
  %zero = poot.constant dense<0.0> : tensor<2x3xf32>
  %4 = poot.add %3, %zero : tensor<2x3xf32>, tensor<2x3xf32>
  %one = poot.constant dense<1.0> : tensor<2x3xf32>
  %5 = poot.mul %4, %one : tensor<2x3xf32>, tensor<2x3xf32>
  %6 = poot.concat %5 {axis = 0 : i64} : tensor<2x3xf32>
  // CHECK-NEXT: return %[[X]]
  return %6 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_chain
// CHECK-SAME: (%[[X:.+]]: tensor<2x3x4xf32>)
func.func @reshape_chain(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  // CHECK-NEXT: %[[R:.+]] = poot.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
  %0 = poot.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = poot.reshape %0 : tensor<6x4xf32> -> tensor<24xf32>
  // CHECK-NEXT: return %[[R]]
  return %1 : tensor<24xf32>
}

// -----

// CHECK-LABEL: func.func @select_constant
// CHECK-SAME: (%[[A:.+]]: tensor<4xf32>, %[[B:.+]]: tensor<4xf32>)
func.func @select_constant(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = poot.constant dense<false> : tensor<4xi1>
  %0 = poot.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>, tensor<4xf32>
  // CHECK-NEXT: return %[[B]]
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @splat_broadcast
func.func @splat_broadcast() -> tensor<2x3xf32> {
  // CHECK-NEXT: %[[C:.+]] = poot.constant dense<-1.000000e+00> : tensor<2x3xf32>
  %c = poot.constant dense<-1.0> : tensor<3xf32>
  %0 = poot.broadcast %c {shape = array<i64: 2, 3>} : tensor<3xf32>
  // CHECK-NEXT: return %[[C]]
  return %0 : tensor<2x3xf32>
}

// -----

// max(x, -inf) and min(x, +inf) are x (jnp.max(x, initial=-inf)), on
// either side; max(x, 0) and a max that would broadcast x stay.
// CHECK-LABEL: func.func @max_min_identity
// CHECK-SAME: (%[[X:[^:]+]]: tensor<2x3xf32>)
func.func @max_min_identity(%x: tensor<2x3xf32>)
    -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) {
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %inf = poot.constant dense<0x7F800000> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %wide = poot.constant dense<0xFF800000> : tensor<4x1x1xf32>
  %a = poot.max %ninf, %x : tensor<f32>, tensor<2x3xf32>
  %b = poot.min %x, %inf : tensor<2x3xf32>, tensor<f32>
  // CHECK: %[[C:.+]] = poot.max %[[X]], %{{.+}} : tensor<2x3xf32>, tensor<f32>
  %c = poot.max %x, %zero : tensor<2x3xf32>, tensor<f32>
  // CHECK: %[[D:.+]] = poot.max %[[X]], %{{.+}} : tensor<2x3xf32>, tensor<4x1x1xf32>
  %d = poot.max %x, %wide : tensor<2x3xf32>, tensor<4x1x1xf32>
  // CHECK: return %[[X]], %[[X]], %[[C]], %[[D]]
  return %a, %b, %c, %d : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>
}
