// RUN: poot-opt %s --poot-generate=target=spirv | FileCheck %s
// RUN: not poot-opt %s --poot-generate="target=spirv int64=false" 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: rm -rf %t && mkdir -p %t
// Planned for the generic Vulkan preset, whose facts lack 64-bit integers:
// the planner's typed refusal, before any device is opened.
// RUN: not poot-run %s --no-fusion --device=vulkan --quiet 2>&1 | FileCheck %s --check-prefix=PRESET
// On this machine's Vulkan device, which has shaderInt64 (the generic
// preset does not promise it: Plan/plan-errors.mlir): the serialised
// module, and values past 2^31 and 2^32 equal to the oracle's (--check
// compares integers exactly).
// RUN: %if vulkan-int64 %{ poot-compile %s --no-fusion --target=vulkan --device-from-host --emit=spirv --quiet -o %t/wide.spv %}
// RUN: %if vulkan-int64 %{ spirv-val --target-env vulkan1.2 %t/wide.spv %}
// RUN: %if vulkan-int64 %{ spirv-dis %t/wide.spv | FileCheck %s --check-prefix=SPV %}
// RUN: %if vulkan-int64 %{ poot-run %s --no-fusion --device=vulkan --device-from-host --device-only --check --quiet --set=arg0=3000000000,-5000000000,1099511627779,-1 --set=arg1=2147483647,-2147483648,7,0 %}
// An attention's i64 position and an i64 constant need no 64-bit integers:
// planned for the generic preset, its module declares no Int64.
// RUN: poot-compile %S/Inputs/int64-position.mlir --target=vulkan --emit=spirv --quiet -o %t/position.spv
// RUN: spirv-dis %t/position.spv | FileCheck %s --check-prefix=POSITION --implicit-check-not="OpCapability Int64" --implicit-check-not="OpTypeInt 64"
// RUN: %if vulkan %{ poot-run %S/Inputs/int64-position.mlir --device=vulkan --device-only --check --quiet --set=pos=9 %}

// i64 buffers as themselves and 64-bit arithmetic; the module allows Int64.
// CHECK: spirv.target_env = #spirv.target_env<#spirv.vce<v1.3, [{{.*}}Int64{{.*}}]
// CHECK-LABEL: func.func @wide
// CHECK: gpu.func @add_0(%{{.*}}: memref<4xi64, #spirv.storage_class<StorageBuffer>>, %{{.*}}: memref<1xi64, #spirv.storage_class<StorageBuffer>>, %{{.*}}: memref<4xi64, #spirv.storage_class<StorageBuffer>>)
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: gpu.func @compare_1(
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i64
// CHECK: gpu.func @convert_2(%{{.*}}: memref<4xi32, #spirv.storage_class<StorageBuffer>>, %{{.*}}: memref<4xi64, #spirv.storage_class<StorageBuffer>>)
// CHECK: arith.extsi %{{.*}} : i32 to i64

// Refused where the device has no 64-bit integers, naming the feature.
// REFUSED: error: DtypeLowering: target spirv cannot store 'i64' buffers: the device lacks shaderInt64

// PRESET: DtypeLowering: target spirv on device vulkan cannot store i64 buffers: the device lacks shaderInt64

// The capability alone: no extension beyond the storage-buffer class.
// SPV-DAG: OpCapability Shader
// SPV-DAG: OpCapability Int64
// SPV: OpExtension "SPV_KHR_storage_buffer_storage_class"
// SPV-NOT: OpExtension
// SPV: OpTypeInt 64

// POSITION: OpCapability Shader
// POSITION: OpEntryPoint GLCompute

func.func @wide(%a: tensor<4xi64>, %x: tensor<4xi32>)
    -> (tensor<4xi64>, tensor<4xi1>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>) {
  %k = poot.constant dense<4294967296> : tensor<i64>
  %s = poot.add %a, %k : tensor<4xi64>, tensor<i64>
  %c = poot.compare gt, %s, %k : tensor<4xi64>, tensor<i64>
  %w = poot.convert %x : tensor<4xi32> -> tensor<4xi64>
  %p = poot.mul %w, %k : tensor<4xi64>, tensor<i64>
  %f = poot.convert %a : tensor<4xi64> -> tensor<4xf32>
  return %s, %c, %w, %p, %f : tensor<4xi64>, tensor<4xi1>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>
}
