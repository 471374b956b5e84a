// Any prefix of the pipeline reads back into poot-opt, generated kernels
// included; poot-generate takes its target from the device the module was
// planned for, and refuses a module planned for a device of another target.
// RUN: poot-opt %s --poot-plan=device=vulkan --poot-generate | poot-opt | FileCheck %s --check-prefix=VULKAN
// RUN: poot-opt %s --poot-plan=device=sm_90 --poot-generate | poot-opt | FileCheck %s --check-prefix=SM90
// RUN: poot-opt %s --poot-plan=device=gfx1100 --poot-generate | FileCheck %s --check-prefix=GFX1100
// RUN: not poot-opt %s --poot-plan=device=sm_90 --poot-generate=target=spirv 2>&1 | FileCheck %s --check-prefix=MISMATCH
// RUN: not poot-opt %s --poot-plan=device=gfx942 --poot-generate="target=rocdl chip=gfx90a" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not poot-opt %s --poot-plan 2>&1 | FileCheck %s --check-prefix=NODEVICE
// RUN: not poot-opt %s --poot-plan=device=h100 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Two layers' identical attentions share one kernel.
// VULKAN: kernel = "attention_0_stream"
// VULKAN: kernel = "attention_0_stream"
// VULKAN: gpu.module @poot_kernels
// VULKAN-COUNT-1: gpu.func @attention_
// VULKAN-NOT: gpu.func @attention_
// SM90: gpu.module @poot_kernels
// SM90: gpu.func @attention_0_
// GFX1100: gpu.func @attention_0_
// MISMATCH: error: planned for device sm_90 (target nvvm), not for target spirv
// CHIP: error: planned for gfx942, not for chip gfx90a
// NODEVICE: error: expected a device preset (device=sm_80, sm_89, sm_90, gfx90a, gfx942, gfx1100, vulkan, cpu)
// UNKNOWN: error: unknown device preset 'h100' (sm_80, sm_89, sm_90, gfx90a, gfx942, gfx1100, vulkan, cpu)
func.func @two_layers(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>, %pos: tensor<i32>) -> tensor<1x4x1x64xf32> {
  %a = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.125 : f64, n_rep = 2 : i64, causal} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  %b = poot.attention %a, %k, %v pos(%pos : tensor<i32>) {scale = 0.125 : f64, n_rep = 2 : i64, causal} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %b : tensor<1x4x1x64xf32>
}
