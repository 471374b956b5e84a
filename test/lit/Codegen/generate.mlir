// RUN: poot-opt %s --split-input-file --poot-plan=device=vulkan --poot-generate | FileCheck %s

// The streaming kernel of a GQA decode on the generic Vulkan device: one
// workgroup per (batch row, KV head) serving both query heads of the group,
// 16 lanes, state in Workgroup memory.
// CHECK-LABEL: func.func @decode
// CHECK: poot.attention
// CHECK-SAME: poot.launches = [{args = ["q", "k", "v", "pos", "out"], grid = array<i64: 2, 1>, kernel = "attention_0_stream", lanes = 16 : i64}]
// CHECK: gpu.module @poot_kernels
// CHECK: gpu.func @attention_0_stream(%{{.*}}: memref<1x4x1x64xf32, #spirv.storage_class<StorageBuffer>>
// CHECK-SAME: kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [16, 1, 1]>}
// running max, denominator and accumulator per (head, lane)
// CHECK: memref.alloc() : memref<32xf32, #spirv.storage_class<Workgroup>>
// CHECK: memref.alloc() : memref<32xf32, #spirv.storage_class<Workgroup>>
// CHECK: memref.alloc() : memref<2048xf32, #spirv.storage_class<Workgroup>>
// lanes stride over the keys; a -inf score is skipped
// CHECK: scf.for
// CHECK: arith.cmpf une
// CHECK: math.exp
// one barrier, then the lane fold
// CHECK: gpu.barrier
func.func @decode(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>, %pos: tensor<i32>) -> tensor<1x4x1x64xf32> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.125 : f64, n_rep = 2 : i64, causal} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

// A long decode on few rows splits: partials into a scratch, then a
// combine kernel per row.
// CHECK-LABEL: func.func @split
// CHECK: kernel = "attention_0_partial"
// CHECK: kernel = "attention_0_combine"
// CHECK: gpu.func @attention_0_partial
// CHECK: gpu.func @attention_0_combine
func.func @split(%q: tensor<1x1x1x32xf16>, %k: tensor<1x1x4096x32xf16>, %v: tensor<1x1x4096x32xf16>, %len: tensor<1xi32>) -> tensor<1x1x1x32xf16> {
  %o = poot.attention %q, %k, %v len(%len : tensor<1xi32>) {scale = 0.17 : f64, n_rep = 1 : i64} : tensor<1x1x1x32xf16>, tensor<1x1x4096x32xf16>, tensor<1x1x4096x32xf16> -> tensor<1x1x1x32xf16>
  return %o : tensor<1x1x1x32xf16>
}
