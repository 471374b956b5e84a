// RUN: poot-opt %s --split-input-file --poot-test-int-range | FileCheck %s

// The ranges the fusion proofs rely on, as IntegerRangeAnalysis proves them.

// CHECK-LABEL: func.func @decode_positions
func.func @decode_positions(%pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 64>}) -> (tensor<64xi1>, tensor<i32>, tensor<i1> {poot.validation}) {
  // key index t in [0, 63]
  // CHECK: poot.iota {{.*}}ranges = "[0, 63]"
  %t = poot.iota {dim = 0 : i64} : tensor<64xi32>
  // pos is the declared [0, 64) minus one at the top
  // CHECK: poot.broadcast {{.*}}ranges = "[0, 63]"
  %p = poot.broadcast %pos {shape = array<i64: 64>} : tensor<i32>
  // CHECK: poot.compare le, {{.*}}ranges = "[0, 1]"
  %visible = poot.compare le, %t, %p : tensor<64xi32>, tensor<64xi32>
  // len = pos + 1 lies in [1, 64]
  %one = poot.constant dense<1> : tensor<i32>
  // CHECK: poot.add {{.*}}ranges = "[1, 64]"
  %len = poot.add %pos, %one : tensor<i32>, tensor<i32>
  // A guard whose bounds hold the whole range clamps nothing: witness is 1.
  // CHECK: poot.index_guard {{.*}}ranges = "[1, 64] [1, 1]"
  %c, %w = poot.index_guard %len {lo = 1 : i64, hi = 64 : i64} : tensor<i32>
  return %visible, %c, %w : tensor<64xi1>, tensor<i32>, tensor<i1>
}

// -----

// CHECK-LABEL: func.func @unbounded_len
func.func @unbounded_len(%len: tensor<2xi32> {poot.slot = "len"}) -> (tensor<2xi32>, tensor<i1> {poot.validation}) {
  // Without a declared range only the clamp bounds the length, and the
  // witness is unknown.
  // CHECK: poot.index_guard {{.*}}ranges = "[1, 32] [0, 1]"
  %c, %w = poot.index_guard %len {lo = 1 : i64, hi = 32 : i64} : tensor<2xi32>
  return %c, %w : tensor<2xi32>, tensor<i1>
}

// -----

// CHECK-LABEL: func.func @paged_map
func.func @paged_map(%read: tensor<2x16xi32> {poot.slot = "slot_map", poot.range = array<i64: 0, 48>}, %pool: tensor<48x2x8xf32>) -> (tensor<2x16x2x8xf32>, tensor<16xi32>, tensor<2x3xi32>) {
  // Every read word is a pool slot.
  // CHECK: poot.slice {{.*}}ranges = "[0, 47]"
  %row = poot.slice %read {start = array<i64: 0, 0>, limit = array<i64: 1, 16>, step = array<i64: 1, 1>} : tensor<2x16xi32>
  %flat = poot.reshape %row : tensor<1x16xi32> -> tensor<16xi32>
  // CHECK: poot.gather
  %kv = poot.gather %pool[%read] {axis = 0 : i64} : tensor<48x2x8xf32>, tensor<2x16xi32>
  %scores = poot.convert %read : tensor<2x16xi32> -> tensor<2x16xf32>
  // top-k indices are positions along the last axis
  // CHECK: poot.topk {{.*}}ranges = "[0, 15]"
  %v, %i = poot.topk %scores {k = 3 : i64} : tensor<2x16xf32>
  return %kv, %flat, %i : tensor<2x16x2x8xf32>, tensor<16xi32>, tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @arith
func.func @arith(%a: tensor<4xi64> {poot.range = array<i64: -3, 5>}) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  // CHECK: poot.neg {{.*}}ranges = "[-4, 3]"
  %n = poot.neg %a : tensor<4xi64>
  // CHECK: poot.abs {{.*}}ranges = "[0, 4]"
  %b = poot.abs %a : tensor<4xi64>
  %two = poot.constant dense<2> : tensor<4xi64>
  // CHECK: poot.mul {{.*}}ranges = "[-6, 8]"
  %m = poot.mul %a, %two : tensor<4xi64>, tensor<4xi64>
  // CHECK: poot.max {{.*}}ranges = "[2, 4]"
  %x = poot.max %a, %two : tensor<4xi64>, tensor<4xi64>
  return %n, %b, %m, %x : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}
