// RUN: poot-opt %s --split-input-file --poot-generate=target=spirv -verify-diagnostics | FileCheck %s

// The simple kernels of the ops that are not attention: one thread per
// output element in a grid-stride loop over flat buffers, operands bound
// as in<i>, results as out<i>.

// Elementwise with numpy broadcasting: b [3] is read at the column of the
// output element; f16 storage, f32 math.
// CHECK-LABEL: func.func @broadcast_add
// CHECK: poot.add
// CHECK-SAME: poot.launches = [{args = ["in0", "in1", "out0"], grid = array<i64: 1, 1>, kernel = "add_0", lanes = 64 : i64}]
// CHECK: gpu.func @add_0(%{{.*}}: memref<6xf16, #spirv.storage_class<StorageBuffer>>, %{{.*}}: memref<3xf16, #spirv.storage_class<StorageBuffer>>, %{{.*}}: memref<6xf16, #spirv.storage_class<StorageBuffer>>)
// CHECK-SAME: workgroup_size = [64, 1, 1]
// i = block * 64 + thread, stride = grid * 64
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[BID:.+]] = gpu.block_id x
// CHECK: %[[GRID:.+]] = gpu.grid_dim x
// CHECK: scf.for
// column = i % 3
// CHECK: arith.remui
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: arith.addf {{.*}} : f32
// CHECK: arith.truncf {{.*}} : f32 to f16
func.func @broadcast_add(%a: tensor<2x3xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %0 = poot.add %a, %b : tensor<2x3xf16>, tensor<3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// A reduction loops over the reduced axis per output element, in index
// order, accumulating in f32.
// CHECK-LABEL: func.func @sum
// CHECK: kernel = "reduce_sum_0"
// CHECK: gpu.func @reduce_sum_0
// CHECK: scf.for
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.addf
func.func @sum(%a: tensor<2x5xf32>) -> tensor<2xf32> {
  %0 = poot.reduce_sum %a {axis = 1 : i64} : tensor<2x5xf32>
  return %0 : tensor<2xf32>
}

// -----

// matmul: out[b, i, j] = sum_p a[b, i, p] * w[p, j]; the weight's missing
// batch dim broadcasts.
// CHECK-LABEL: func.func @matmul
// CHECK: kernel = "matmul_0"
// CHECK: gpu.func @matmul_0(%{{.*}}: memref<8xf32, {{.*}}>, %{{.*}}: memref<20xf32, {{.*}}>, %{{.*}}: memref<10xf32, {{.*}}>)
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @matmul(%a: tensor<2x1x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x1x5xf32> {
  %0 = poot.matmul %a, %w : tensor<2x1x4xf32>, tensor<4x5xf32>
  return %0 : tensor<2x1x5xf32>
}

// -----

// Data movement: transpose reads the permuted source element.
// CHECK-LABEL: func.func @transpose
// CHECK: kernel = "transpose_0"
// CHECK: gpu.func @transpose_0
// CHECK: memref.load
// CHECK: memref.store
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = poot.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// gather checks every index it reads: one outside the axis sets the error
// word (bound as "err") the runner turns into IndexOutOfRange.
// CHECK-LABEL: func.func @gather
// CHECK: args = ["in0", "in1", "out0", "err"]
// CHECK: gpu.func @gather_0({{.*}}, %[[ERR:arg[0-9]+]]: memref<1xi32, #spirv.storage_class<StorageBuffer>>)
// 0 <= idx < 8, else err = 1
// CHECK-DAG: arith.cmpi sge
// CHECK-DAG: arith.cmpi slt
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[ERR]]
func.func @gather(%x: tensor<8x4xf32>, %i: tensor<3xi32>) -> tensor<3x4xf32> {
  %0 = poot.gather %x[%i] {axis = 0 : i64} : tensor<8x4xf32>, tensor<3xi32>
  return %0 : tensor<3x4xf32>
}

// -----

// Booleans travel as i32 words: compare stores zero-extended i1.
// CHECK-LABEL: func.func @compare
// CHECK: gpu.func @compare_0({{.*}}, %{{.*}}: memref<4xi32, #spirv.storage_class<StorageBuffer>>)
// CHECK: arith.cmpi slt
// CHECK: arith.extui {{.*}} : i1 to i32
func.func @compare(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi1> {
  %0 = poot.compare lt, %a, %b : tensor<4xi32>, tensor<4xi32>
  return %0 : tensor<4xi1>
}

// -----

// topk: thread (row, p) counts the elements ranked before p (greater, or
// equal at a lower index, NaN first) and writes slot rank when rank < k.
// CHECK-LABEL: func.func @topk
// CHECK: args = ["in0", "out0", "out1"]
// CHECK: gpu.func @topk_0
// CHECK: arith.cmpf uno
// CHECK: scf.for {{.*}} iter_args
// CHECK-DAG: arith.cmpf ogt
// CHECK-DAG: arith.cmpf oeq
// CHECK: scf.if
func.func @topk(%x: tensor<2x16xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %v, %i = poot.topk %x {k = 3 : i64} : tensor<2x16xf32>
  return %v, %i : tensor<2x3xf32>, tensor<2x3xi32>
}

// -----

// RoPE (half style): channel c < r pairs with c +- r/2, the first half
// negated; channels past rotary_dim pass through.
// CHECK-LABEL: func.func @rope
// CHECK: kernel = "rope_0"
// CHECK: gpu.func @rope_0
// CHECK: scf.if
// CHECK: arith.negf
// rotary part = x cos + rot sin
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @rope(%x: tensor<1x2x4x8xf32>, %c: tensor<4x6xf32>, %s: tensor<4x6xf32>) -> tensor<1x2x4x8xf32> {
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 6 : i64} : tensor<1x2x4x8xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

// block_topk: one thread per (row, block); the block max with future keys
// at -inf, then the block's rank among the row's blocks.
// CHECK-LABEL: func.func @block_topk
// CHECK: args = ["in0", "in1", "out0"]
// CHECK: gpu.func @block_topk_0
// CHECK: arith.cmpi sgt
// CHECK: arith.maximumf
// CHECK: arith.cmpf uno
func.func @block_topk(%s: tensor<2x3x64xf32>, %pos: tensor<i32>) -> tensor<2x3x2xi32> {
  %0 = poot.block_topk %s pos(%pos : tensor<i32>) {ratio = 4 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  return %0 : tensor<2x3x2xi32>
}

// -----

// selected_attention: per output element, the blocks in order, a block
// visible when it is the row's own or a selected one; two passes over the
// visible keys (max, then e^(s - m) and the weighted sum).
// CHECK-LABEL: func.func @selected
// CHECK: args = ["in0", "in1", "in2", "in3", "in4", "out0"]
// CHECK: gpu.func @selected_attention_0
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.divf
func.func @selected(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>, %pos: tensor<2xi32>) -> tensor<2x4x1x16xf32> {
  %0 = poot.selected_attention %q, %k, %v, %blocks pos(%pos : tensor<2xi32>) {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return %0 : tensor<2x4x1x16xf32>
}

// -----

// 64-bit integers stay 64 bits wide, never narrowed (the module allows
// Int64; without it they are refused: generate-int64.mlir).
// CHECK-LABEL: func.func @wide
// CHECK: gpu.func @add_0(%{{.*}}: memref<4xi64, #spirv.storage_class<StorageBuffer>>, %{{.*}}: memref<4xi64, #spirv.storage_class<StorageBuffer>>, %{{.*}}: memref<4xi64, #spirv.storage_class<StorageBuffer>>)
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
func.func @wide(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = poot.add %a, %b : tensor<4xi64>, tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// 32-bit indices on SPIR-V: a tensor past their reach is refused, not
// indexed with a wrapping loop.
func.func @huge(%a: tensor<65536x65536xf16>) -> tensor<65536x65536xf16> {
  // expected-error @below {{expected at most 2146435072 elements per tensor on target spirv, got 4294967296}}
  %0 = poot.neg %a : tensor<65536x65536xf16>
  return %0 : tensor<65536x65536xf16>
}
