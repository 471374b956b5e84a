// The warpgroup tile, sm_90's prefill schedule: the products are wgmma on the
// architecture-specific target; a schedule it cannot take is refused.
// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_90 --poot-generate=target=nvvm | FileCheck %s
// RUN: not poot-opt %s --split-input-file --poot-generate=target=nvvm 2>&1 | FileCheck %s --check-prefix=REFUSE

// CHECK-LABEL: gpu.module
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: wgmma.mma_async.sync.aligned.m64n96k16.f32.bf16.bf16
func.func @prefill(%q: tensor<1x8x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x96xbf16>) -> tensor<1x8x100x96xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 4 : i64, causal} : tensor<1x8x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x96xbf16> -> tensor<1x8x100x96xbf16>
  return %o : tensor<1x8x100x96xbf16>
}

// -----

// 64-wide values: the value products are m64n64k16, the score products'
// shape, so each score product is two of 32 keys (4 steps of 16 channels x
// 2), then the 4 value products.
// CHECK-LABEL: gpu.module
// CHECK-COUNT-8: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-NOT: wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
func.func @width_64(%q: tensor<1x8x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x8x100x64xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 4 : i64, causal} : tensor<1x8x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x8x100x64xbf16>
  return %o : tensor<1x8x100x64xbf16>
}

// -----

// REFUSE: error: expected a warpgroup tile schedule with a value width of 32, 64, 96 or 128 and 64-key tiles, got 80 and 64
func.func @width_80(%q: tensor<1x8x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x80xbf16>) -> tensor<1x8x100x80xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 4 : i64, causal, poot.schedule = #poot.attention_schedule<grouped = true, group = 4, lanes = 128, subgroup = 32, vector = 8, matrix = true, chunk = 100, grid_x = 2, state_bytes = 32768, causal_skip = true, tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, device = "sm_90">} : tensor<1x8x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x80xbf16> -> tensor<1x8x100x80xbf16>
  return %o : tensor<1x8x100x80xbf16>
}
