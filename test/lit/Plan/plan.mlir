// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_90 | FileCheck %s --check-prefix=SM90
// RUN: poot-opt %s --split-input-file --poot-plan=device=gfx942 | FileCheck %s --check-prefix=GFX942
// RUN: poot-opt %s --split-input-file --poot-plan=device=vulkan | FileCheck %s --check-prefix=VULKAN
// RUN: poot-opt %s --split-input-file --poot-plan=device=sm_80 | FileCheck %s --check-prefix=SM80
// RUN: poot-opt %s --split-input-file --poot-plan=device=gfx1100 | FileCheck %s --check-prefix=GFX1100

// Llama-3-70B decode, B=1, Lk=32768, Hq=64/Hkv=8, D=128, f16.
// On CUDA 8 rows (one per KV head) leave the device idle, so the keys
// split for two workgroups a unit: splits = min(16, ceil(2 CUs / 8),
// 32768 / 128) = 16 of 2048 keys on sm_90 and on sm_80.
// On the generic Vulkan device (16 KiB) the group does not fit: per-head
// streaming with 16 lanes over 64 rows, which fill its 16 units.
// SM90-LABEL: func.func @llama70b_decode
// SM90: poot.attention
// On CUDA the matrix-tile schedule (f16, grouped heads): all 8 heads of a
// KV head on one workgroup of 16 warps, each warp scoring 16 keys x 8 heads
// per tile product; 8 rows x 16 splits; 16-byte vectors of 8 for key and
// value rows, one tile in flight. 128 workgroups leave one a unit, and the
// partials of 16 warps would not fit: they fold in pairs first.
// The last workgroup of each row folds its splits (8 ticket counters).
// SM90-SAME: poot.schedule = {causal_skip = false, chunk = 2048 : i64, counter_bytes = 32 : i64, device = "sm_90", fused_combine = true, grid = array<i64: 128, 1>, group = 8 : i64, grouped = true, key_lanes = 0 : i64, kind = "split", lanes = 512 : i64, live_splits = false, matrix = true, pair_fold = true, scratch_bytes = 532480 : i64, splits = 16 : i64, state_bytes = 33280 : i64, subgroup = 32 : i64, unroll = 1 : i64, value_vector = 8 : i64, vector = 8 : i64}
// On AMD the same channel schedule over wavefronts (64 lanes on gfx942,
// 32 on gfx1100).
// GFX942-LABEL: func.func @llama70b_decode
// GFX942: kind = "split", lanes = 1024 : i64
// GFX942-SAME: splits = 16 : i64
// GFX942-SAME: subgroup = 64 : i64
// GFX1100-LABEL: func.func @llama70b_decode
// GFX1100: kind = "split", lanes = 512 : i64
// GFX1100-SAME: splits = 12 : i64
// GFX1100-SAME: subgroup = 32 : i64
// VULKAN-LABEL: func.func @llama70b_decode
// VULKAN: grouped = false, key_lanes = 0 : i64, kind = "streaming", lanes = 16 : i64
// SM80-LABEL: func.func @llama70b_decode
// SM80: chunk = 2048 : i64
// SM80-SAME: group = 8 : i64, grouped = true, key_lanes = 0 : i64, kind = "split", lanes = 256 : i64
// SM80-SAME: matrix = true
// SM80-SAME: splits = 16 : i64
func.func @llama70b_decode(%q: tensor<1x64x1x128xf16>, %k: tensor<1x8x32768x128xf16>, %v: tensor<1x8x32768x128xf16>, %pos: tensor<i32>) -> tensor<1x64x1x128xf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 8 : i64, causal} : tensor<1x64x1x128xf16>, tensor<1x8x32768x128xf16>, tensor<1x8x32768x128xf16> -> tensor<1x64x1x128xf16>
  return %o : tensor<1x64x1x128xf16>
}

// -----

// B=128, Lk=8192: 1024 grouped rows already fill every device: streaming.
// SM90-LABEL: func.func @llama70b_batch128
// SM90: group = 4 : i64, grouped = true, key_lanes = 16 : i64, kind = "streaming"
// SM90-SAME: splits = 1 : i64
// GFX942-LABEL: func.func @llama70b_batch128
// GFX942: kind = "streaming"
func.func @llama70b_batch128(%q: tensor<128x64x1x128xf32>, %k: tensor<128x8x8192x128xf32>, %v: tensor<128x8x8192x128xf32>) -> tensor<128x64x1x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 8 : i64} : tensor<128x64x1x128xf32>, tensor<128x8x8192x128xf32>, tensor<128x8x8192x128xf32> -> tensor<128x64x1x128xf32>
  return %o : tensor<128x64x1x128xf32>
}

// -----

// Causal prefill: one workgroup per query row, tiles past the diagonal
// skipped; never split.
// SM90-LABEL: func.func @prefill_causal
// SM90: poot.request = {dtype = "f32", key_bound = "capacity", key_form = "dense", mask = "causal", score = "scale", shape = array<i64: 1, 32, 8, 4096, 4096, 128, 128>}
// SM90-SAME: causal_skip = true
// SM90-SAME: grid = array<i64: 131072, 1>
// SM90-SAME: grouped = false, key_lanes = 16 : i64, kind = "streaming", lanes = 512 : i64
// On Vulkan the 131072 rows pass the 65535 X limit and fold into Y.
// VULKAN-LABEL: func.func @prefill_causal
// VULKAN: grid = array<i64: 65535, 3>
func.func @prefill_causal(%q: tensor<1x32x4096x128xf32>, %k: tensor<1x8x4096x128xf32>, %v: tensor<1x8x4096x128xf32>) -> tensor<1x32x4096x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x32x4096x128xf32>, tensor<1x8x4096x128xf32>, tensor<1x8x4096x128xf32> -> tensor<1x32x4096x128xf32>
  return %o : tensor<1x32x4096x128xf32>
}

// -----

// A live decode splits its keys by len at run time inside a fixed grid;
// a value width of 512 still runs, with fewer lanes (16 KiB / (514 * 4)).
// SM90-LABEL: func.func @live_wide
// SM90: key_bound = "live"
// SM90-SAME: kind = "split"
// SM90-SAME: live_splits = true
// VULKAN-LABEL: func.func @live_wide
// 2 rows on 16 units: min(16, ceil(2 * 16 / 2), 4096 / 128) = 16 splits.
// VULKAN: kind = "split", lanes = 4 : i64
// VULKAN-SAME: splits = 16 : i64
func.func @live_wide(%q: tensor<1x2x1x512xf32>, %k: tensor<1x2x4096x512xf32>, %v: tensor<1x2x4096x512xf32>, %len: tensor<1xi32>) -> tensor<1x2x1x512xf32> {
  %o = poot.attention %q, %k, %v len(%len : tensor<1xi32>) {scale = 0.044 : f64, n_rep = 1 : i64} : tensor<1x2x1x512xf32>, tensor<1x2x4096x512xf32>, tensor<1x2x4096x512xf32> -> tensor<1x2x1x512xf32>
  return %o : tensor<1x2x1x512xf32>
}
