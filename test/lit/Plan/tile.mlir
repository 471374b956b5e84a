// The planner's rules for the tile schedule (prefill on the matrix tile).
// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_90 | FileCheck %s
// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: poot-opt %s --split-input-file --poot-plan=device=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: poot-opt %s --split-input-file --poot-plan="device=sm_90 no-warpgroup=true" | FileCheck %s --check-prefix=NOWG
// RUN: poot-opt %s --split-input-file --poot-plan="device=sm_90 warpgroup-pipeline=true" | FileCheck %s --check-prefix=PIPE
// RUN: poot-opt %s --split-input-file --poot-plan="device=sm_90 wide-warpgroup=true" | FileCheck %s --check-prefix=WIDE
// RUN: poot-opt %s --split-input-file --poot-plan="device=sm_90 no-dealt-order=true" | FileCheck %s --check-prefix=HEAVY

// bf16 prefill, Llama-3-8B layer: 4 heads of a KV head interleaved in 64
// rows; 1024 rows x 4 heads / 64 = 64 row blocks x 8 KV heads. sm_90
// multiplies on the warpgroup tile: one warpgroup of 64 rows against 64-key
// tiles, keys and values one buffer each in the swizzled layout (2 x 64 keys
// x 128 bytes each) and q a third. Causal, so the row blocks differ in
// weight: dealt across the 132 compute units.
// CHECK-LABEL: func.func @prefill_8b
// CHECK: #poot.attention_schedule<grouped = true, group = 4, lanes = 128, subgroup = 32, vector = 8, matrix = true, chunk = 1024, grid_x = 512, state_bytes = 49152, causal_skip = true, tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true, tile_units = 132, device = "sm_90">
// HEAVY-LABEL: func.func @prefill_8b
// HEAVY: tile_shared_query = true, device = "sm_90">
// Asked for two warpgroups a workgroup (the default where the rows see a
// longer cache, or without causality): 128 rows sharing each tile, q a
// block of 64 rows for each warpgroup: 64 KiB, past the 48 KiB a kernel
// declares, so the launch gives it; 32 x 8 workgroups.
// WIDE-LABEL: func.func @prefill_8b
// WIDE: #poot.attention_schedule<grouped = true, group = 4, lanes = 256, subgroup = 32, vector = 8, matrix = true, chunk = 1024, grid_x = 256, state_bytes = 65536, causal_skip = true, tile_rows = 128, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true, tile_units = 132, device = "sm_90">
// Asked for the pipelined form: two key buffers beside the value buffer,
// 48 KiB (the next tile's scores run during this tile's softmax).
// PIPE-LABEL: func.func @prefill_8b
// PIPE: state_bytes = 49152, causal_skip = true, tile_rows = 64, tile_keys = 64, tile_stages = 2, tile_warpgroup = true
// On the subgroup tile (asked for on sm_90; sm_80's only one), two 64-key
// tiles would take 77824 bytes of workgroup memory, two 32-key tiles fit.
// NOWG-LABEL: func.func @prefill_8b
// NOWG: state_bytes = 37888, causal_skip = true, tile_rows = 64, tile_keys = 32, tile_stages = 2, device = "sm_90">
// SM80-LABEL: func.func @prefill_8b
// SM80: state_bytes = 37888, causal_skip = true, tile_rows = 64, tile_keys = 32, tile_stages = 2, device = "sm_80">
// AMD's matrix instructions have other layouts: no tile schedule there.
// GFX942-LABEL: func.func @prefill_8b
// GFX942-NOT: tile_rows
func.func @prefill_8b(%q: tensor<1x32x1024x128xbf16>, %k: tensor<1x8x1024x128xbf16>, %v: tensor<1x8x1024x128xbf16>) -> tensor<1x32x1024x128xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x32x1024x128xbf16>, tensor<1x8x1024x128xbf16>, tensor<1x8x1024x128xbf16> -> tensor<1x32x1024x128xbf16>
  return %o : tensor<1x32x1024x128xbf16>
}

// -----

// Head width 256: 64-key tiles would pass the registers (64 words of q,
// 128 floats of accumulators, 32 scores), and two 32-key tiles the
// workgroup memory: one 32-key tile (35328 bytes).
// CHECK-LABEL: func.func @wide_head
// CHECK: state_bytes = 35328, causal_skip = true, tile_rows = 64, tile_keys = 32, tile_stages = 1
func.func @wide_head(%q: tensor<1x4x200x256xf16>, %k: tensor<1x2x200x256xf16>, %v: tensor<1x2x200x256xf16>) -> tensor<1x4x200x256xf16> {
  %o = poot.attention %q, %k, %v {scale = 0.0625 : f64, n_rep = 2 : i64, causal} : tensor<1x4x200x256xf16>, tensor<1x2x200x256xf16>, tensor<1x2x200x256xf16> -> tensor<1x4x200x256xf16>
  return %o : tensor<1x4x200x256xf16>
}

// -----

// Not the tile schedule: f32 (no matrix tile for it), a key width off the
// 32-channel steps (80), and multi-token decode whose rows of a KV head
// fill less than half a workgroup (4 rows x 4 heads). 16 rows x 4 heads
// take it (100 keys are too few to split).
// CHECK-LABEL: func.func @f32_prefill
// CHECK-NOT: tile_rows
// CHECK-LABEL: func.func @width_80
// CHECK-NOT: tile_rows
// CHECK-LABEL: func.func @four_rows
// CHECK-NOT: tile_rows
// CHECK-LABEL: func.func @sixteen_rows
// CHECK: grid_x = 2, state_bytes = 49152, causal_skip = true, tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true
func.func @f32_prefill(%q: tensor<1x8x100x128xf32>, %k: tensor<1x2x100x128xf32>, %v: tensor<1x2x100x128xf32>) -> tensor<1x8x100x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x8x100x128xf32>, tensor<1x2x100x128xf32>, tensor<1x2x100x128xf32> -> tensor<1x8x100x128xf32>
  return %o : tensor<1x8x100x128xf32>
}
func.func @width_80(%q: tensor<1x8x100x80xbf16>, %k: tensor<1x2x100x80xbf16>, %v: tensor<1x2x100x80xbf16>) -> tensor<1x8x100x80xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.11 : f64, n_rep = 4 : i64, causal} : tensor<1x8x100x80xbf16>, tensor<1x2x100x80xbf16>, tensor<1x2x100x80xbf16> -> tensor<1x8x100x80xbf16>
  return %o : tensor<1x8x100x80xbf16>
}
func.func @four_rows(%q: tensor<1x8x4x128xbf16>, %k: tensor<1x2x100x128xbf16>, %v: tensor<1x2x100x128xbf16>, %pos: tensor<i32>) -> tensor<1x8x4x128xbf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x8x4x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16> -> tensor<1x8x4x128xbf16>
  return %o : tensor<1x8x4x128xbf16>
}
func.func @sixteen_rows(%q: tensor<1x8x16x128xbf16>, %k: tensor<1x2x100x128xbf16>, %v: tensor<1x2x100x128xbf16>, %pos: tensor<i32>) -> tensor<1x8x16x128xbf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x8x16x128xbf16>, tensor<1x2x100x128xbf16>, tensor<1x2x100x128xbf16> -> tensor<1x8x16x128xbf16>
  return %o : tensor<1x8x16x128xbf16>
}

// -----

// MLA's split key (192 wide against 128-wide values) on the warpgroup
// tile: one key buffer (40 KiB in all), also when the pipelined form is
// asked for, since two 24 KiB key buffers and the 16 KiB value buffer
// would pass 48 KiB.
// CHECK-LABEL: func.func @mla_prefill
// CHECK: state_bytes = 40960, causal_skip = true, tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true
// PIPE-LABEL: func.func @mla_prefill
// PIPE: state_bytes = 40960, causal_skip = true, tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true
func.func @mla_prefill(%q: tensor<1x8x300x192xbf16>, %k: tensor<1x1x300x192xbf16>, %v: tensor<1x1x300x128xbf16>) -> tensor<1x8x300x128xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.072 : f64, n_rep = 8 : i64, causal} : tensor<1x8x300x192xbf16>, tensor<1x1x300x192xbf16>, tensor<1x1x300x128xbf16> -> tensor<1x8x300x128xbf16>
  return %o : tensor<1x8x300x128xbf16>
}

// -----

// Without causality every row block weighs the same: two warpgroups a
// workgroup sharing each tile, and no dealt order. A softcap keeps one
// warpgroup (its transform takes more registers than the 128 a lane two
// workgroups a unit leave).
// CHECK-LABEL: func.func @not_causal
// CHECK: lanes = 256, {{.*}} tile_rows = 128, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true, device = "sm_90">
// CHECK-LABEL: func.func @not_causal_softcap
// CHECK: lanes = 128, {{.*}} tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true, device = "sm_90">
func.func @not_causal(%q: tensor<2x32x1000x128xbf16>, %k: tensor<2x8x1000x128xbf16>, %v: tensor<2x8x1000x128xbf16>) -> tensor<2x32x1000x128xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64} : tensor<2x32x1000x128xbf16>, tensor<2x8x1000x128xbf16>, tensor<2x8x1000x128xbf16> -> tensor<2x32x1000x128xbf16>
  return %o : tensor<2x32x1000x128xbf16>
}
func.func @not_causal_softcap(%q: tensor<2x32x1000x128xbf16>, %k: tensor<2x8x1000x128xbf16>, %v: tensor<2x8x1000x128xbf16>) -> tensor<2x32x1000x128xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, softcap = 30.0 : f64} : tensor<2x32x1000x128xbf16>, tensor<2x8x1000x128xbf16>, tensor<2x8x1000x128xbf16> -> tensor<2x32x1000x128xbf16>
  return %o : tensor<2x32x1000x128xbf16>
}

// -----

// A causal prefill whose grid is past two waves of four workgroups a unit
// (8 x 8192 x 4 / 64 = 4096 workgroups on 132 units): heaviest first, the
// device handing each lighter workgroup to the unit that frees first.
// CHECK-LABEL: func.func @long_causal
// CHECK: tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true, device = "sm_90">
func.func @long_causal(%q: tensor<1x32x8192x128xbf16>, %k: tensor<1x8x8192x128xbf16>, %v: tensor<1x8x8192x128xbf16>) -> tensor<1x32x8192x128xbf16> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x32x8192x128xbf16>, tensor<1x8x8192x128xbf16>, tensor<1x8x8192x128xbf16> -> tensor<1x32x8192x128xbf16>
  return %o : tensor<1x32x8192x128xbf16>
}
