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
// SM90-SAME: poot.schedule = #poot.attention_schedule<split = true, grouped = true, group = 8, lanes = 512, subgroup = 32, vector = 8, matrix = true, pair_fold = true, value_vector = 8, splits = 16, chunk = 2048, grid_x = 128, state_bytes = 33280, scratch_bytes = 532480, fused_combine = true, counter_bytes = 32, device = "sm_90">
// On AMD the same channel schedule over wavefronts (64 lanes on gfx942,
// 32 on gfx1100).
// GFX942-LABEL: func.func @llama70b_decode
// GFX942: #poot.attention_schedule<split = true, grouped = true, group = 4, lanes = 1024, subgroup = 64,
// GFX942-SAME: splits = 16,
// GFX1100-LABEL: func.func @llama70b_decode
// GFX1100: #poot.attention_schedule<split = true, grouped = true, group = 4, lanes = 512, subgroup = 32,
// GFX1100-SAME: splits = 12,
// VULKAN-LABEL: func.func @llama70b_decode
// VULKAN: #poot.attention_schedule<lanes = 16, chunk = 32768, grid_x = 64,
// SM80-LABEL: func.func @llama70b_decode
// SM80: #poot.attention_schedule<split = true, grouped = true, group = 8, lanes = 256, subgroup = 32, vector = 8, matrix = true, value_vector = 8, splits = 16, chunk = 2048,
func.func @llama70b_decode(%q: tensor<1x64x1x128xf16>, %k: tensor<1x8x32768x128xf16>, %v: tensor<1x8x32768x128xf16>, %pos: tensor<i32>) -> tensor<1x64x1x128xf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 8 : i64, causal} : tensor<1x64x1x128xf16>, tensor<1x8x32768x128xf16>, tensor<1x8x32768x128xf16> -> tensor<1x64x1x128xf16>
  return %o : tensor<1x64x1x128xf16>
}

// -----

// B=128, Lk=8192: 1024 grouped rows already fill every device: streaming.
// SM90-LABEL: func.func @llama70b_batch128
// SM90: #poot.attention_schedule<grouped = true, group = 4, lanes = 512, subgroup = 32, vector = 4, key_lanes = 16, unroll = 4, chunk = 8192,
// GFX942-LABEL: func.func @llama70b_batch128
// GFX942: #poot.attention_schedule<grouped = true, group = 4, lanes = 1024, subgroup = 64, vector = 4, key_lanes = 16, unroll = 4, chunk = 8192, grid_x = 2048, state_bytes = 33280, device = "gfx942">
func.func @llama70b_batch128(%q: tensor<128x64x1x128xf32>, %k: tensor<128x8x8192x128xf32>, %v: tensor<128x8x8192x128xf32>) -> tensor<128x64x1x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 8 : i64} : tensor<128x64x1x128xf32>, tensor<128x8x8192x128xf32>, tensor<128x8x8192x128xf32> -> tensor<128x64x1x128xf32>
  return %o : tensor<128x64x1x128xf32>
}

// -----

// Causal prefill: one workgroup per query row, tiles past the diagonal
// skipped; never split.
// SM90-LABEL: func.func @prefill_causal
// SM90: poot.request = {dtype = "f32", key_bound = "capacity", key_form = "dense", mask = "causal", score = "scale", shape = array<i64: 1, 32, 8, 4096, 4096, 128, 128>}
// SM90-SAME: #poot.attention_schedule<lanes = 512, subgroup = 32, vector = 4, key_lanes = 16, unroll = 4, chunk = 4096, grid_x = 131072, state_bytes = 8320, causal_skip = true, device = "sm_90">
// On Vulkan the 131072 rows pass the 65535 X limit and fold into Y.
// VULKAN-LABEL: func.func @prefill_causal
// VULKAN: grid_x = 65535, grid_y = 3,
func.func @prefill_causal(%q: tensor<1x32x4096x128xf32>, %k: tensor<1x8x4096x128xf32>, %v: tensor<1x8x4096x128xf32>) -> tensor<1x32x4096x128xf32> {
  %o = poot.attention %q, %k, %v {scale = 0.088388 : f64, n_rep = 4 : i64, causal} : tensor<1x32x4096x128xf32>, tensor<1x8x4096x128xf32>, tensor<1x8x4096x128xf32> -> tensor<1x32x4096x128xf32>
  return %o : tensor<1x32x4096x128xf32>
}

// -----

// A live decode splits its keys by len at run time inside a fixed grid;
// a value width of 512 still runs, with fewer lanes (16 KiB / (514 * 4)).
// SM90-LABEL: func.func @live_wide
// SM90: key_bound = "live"
// SM90-SAME: #poot.attention_schedule<split = true,
// SM90-SAME: live_splits = true
// VULKAN-LABEL: func.func @live_wide
// 2 rows on 16 units: min(16, ceil(2 * 16 / 2), 4096 / 128) = 16 splits.
// VULKAN: #poot.attention_schedule<split = true, lanes = 4, splits = 16,
func.func @live_wide(%q: tensor<1x2x1x512xf32>, %k: tensor<1x2x4096x512xf32>, %v: tensor<1x2x4096x512xf32>, %len: tensor<1xi32>) -> tensor<1x2x1x512xf32> {
  %o = poot.attention %q, %k, %v len(%len : tensor<1xi32>) {scale = 0.044 : f64, n_rep = 1 : i64} : tensor<1x2x1x512xf32>, tensor<1x2x4096x512xf32>, tensor<1x2x4096x512xf32> -> tensor<1x2x1x512xf32>
  return %o : tensor<1x2x1x512xf32>
}

// -----

// Multi-token decode (8 new rows a sequence, speculative decoding): the 8
// rows of the 8 heads of a KV head are one workgroup of the tile schedule,
// sharing every staged key, on the warpgroup tile (the 64 rows fill it);
// 8 x 8 workgroups leave the 132 units idle, so the keys split 12 ways
// (about two waves of three workgroups a unit) and a combine folds them.
// SM90-LABEL: func.func @multi_token
// SM90: #poot.attention_schedule<split = true, grouped = true, group = 8, lanes = 128, subgroup = 32, vector = 8, matrix = true, splits = 12, chunk = 2731, grid_x = 768, state_bytes = 49152, scratch_bytes = 25559040, causal_skip = true, tile_rows = 64, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true, device = "sm_90">
// Past 16 rows it is prefill: the tile schedule, 128 query rows (the 8
// heads of a KV head interleaved, so 16 query positions) a workgroup of 8
// subgroups, two warpgroups sharing each staged tile, against 64-key tiles
// on the warpgroup tile (the rows see a longer cache, 4096 keys, so the
// row blocks weigh about the same), keys and values one 16 KiB buffer each
// and q 32 KiB (dynamic workgroup memory), 8 x 2 workgroups, dealt across
// the compute units (causal).
// SM90-LABEL: func.func @seventeen_rows
// SM90: #poot.attention_schedule<grouped = true, group = 8, lanes = 256, subgroup = 32, vector = 8, matrix = true, chunk = 4096, grid_x = 16, state_bytes = 65536, causal_skip = true, tile_rows = 128, tile_keys = 64, tile_stages = 1, tile_warpgroup = true, tile_shared_query = true, tile_units = 132, device = "sm_90">
func.func @multi_token(%q: tensor<8x64x8x128xf16>, %k: tensor<8x8x32768x128xf16>, %v: tensor<8x8x32768x128xf16>, %pos: tensor<i32>) -> tensor<8x64x8x128xf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 8 : i64, causal} : tensor<8x64x8x128xf16>, tensor<8x8x32768x128xf16>, tensor<8x8x32768x128xf16> -> tensor<8x64x8x128xf16>
  return %o : tensor<8x64x8x128xf16>
}
func.func @seventeen_rows(%q: tensor<1x64x17x128xf16>, %k: tensor<1x8x4096x128xf16>, %v: tensor<1x8x4096x128xf16>, %pos: tensor<i32>) -> tensor<1x64x17x128xf16> {
  %o = poot.attention %q, %k, %v pos(%pos : tensor<i32>) {scale = 0.088388 : f64, n_rep = 8 : i64, causal} : tensor<1x64x17x128xf16>, tensor<1x8x4096x128xf16>, tensor<1x8x4096x128xf16> -> tensor<1x64x17x128xf16>
  return %o : tensor<1x64x17x128xf16>
}
