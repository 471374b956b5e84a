// RUN: poot-opt %s --split-input-file --verify-diagnostics

// The verifier of #poot.attention_schedule (the planner's typed decision)
// and the schedule rules poot.attention adds: a schedule no kernel could be
// built from is refused where it is written, not taken with defaults.

func.func @lanes_zero(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected lanes >= 1, got 0}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<lanes = 0>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @streaming_splits(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected 1 split on a streaming schedule, got 4}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<splits = 4>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @split_one(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected at least 2 splits on a split schedule, got 1}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<split = true, splits = 1, scratch_bytes = 64>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @split_no_scratch(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected scratch_bytes for the split partials}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<split = true, splits = 4>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @pair_fold(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected a pairwise fold only on the matrix-tile schedule}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 32, lanes = 64, pair_fold = true>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @matrix_lanes(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected a subgroup for the matrix-tile schedule}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<matrix = true>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @subgroup_odd(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected a subgroup of 0 or a power of two, got 24}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 24, lanes = 48>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @lanes_subgroup(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected lanes 48 to be a multiple of the subgroup 32}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 32, lanes = 48>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @vector(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected power-of-two load widths, got vector 3 and value_vector 1}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<vector = 3>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @key_lanes(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected key_lanes to divide the subgroup 32, got 3}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 32, lanes = 32, key_lanes = 3>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @counters(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected counter_bytes exactly when the combine is fused, got 8}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<split = true, splits = 2, scratch_bytes = 64, counter_bytes = 8>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @streaming_fused(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected no scratch, fused combine or live splits on a streaming schedule}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<fused_combine = true, counter_bytes = 4>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @group_flag(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected grouped = true for a head group of 2}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<group = 2>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @group_n_rep(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected a schedule head group dividing n_rep 2, got 4}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<grouped = true, group = 4>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @untyped(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+1 {{expected poot.schedule to be a #poot.attention_schedule}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = {kind = "streaming", lanes = 16 : i64}} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @bad_flag(%q: tensor<1x4x1x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x4x1x64xf32> {
  // expected-error @+2 {{expected 'true' or 'false'}}
  // expected-error @+1 {{failed to parse Poot_AttentionScheduleAttr parameter 'matrix'}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<matrix = 1>} : tensor<1x4x1x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

func.func @tile_half(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  // expected-error @+1 {{expected tile_rows and tile_keys both set or both 0, got 64 and 0}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 32, lanes = 128, matrix = true, tile_rows = 64>} : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}

// -----

func.func @tile_lanes(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  // expected-error @+1 {{expected a tile schedule on the matrix tile with subgroups of 32, 16 rows a subgroup and keys in steps of 32, got tile_rows 64, tile_keys 48, lanes 128}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 32, lanes = 128, matrix = true, tile_rows = 64, tile_keys = 48>} : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}

// -----

func.func @warpgroup_rows(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  // expected-error @+1 {{expected a warpgroup tile schedule of 64 rows, or 128 with q in workgroup memory, got tile_rows 128}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<subgroup = 32, lanes = 256, matrix = true, tile_rows = 128, tile_keys = 64, tile_stages = 2, tile_warpgroup = true>} : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}

// -----

func.func @warpgroup_not_tile(%q: tensor<1x4x1x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x1x64xbf16> {
  // expected-error @+1 {{expected tile_stages, tile_warpgroup, tile_shared_query and tile_units only on a tile schedule}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<lanes = 64, tile_warpgroup = true>} : tensor<1x4x1x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x1x64xbf16>
  return %o : tensor<1x4x1x64xbf16>
}

// -----

// q in workgroup memory is an operand of the warpgroup tile's one-buffer
// form only.
func.func @shared_query_two_stages(%q: tensor<1x4x100x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x100x64xbf16> {
  // expected-error @+1 {{expected tile_shared_query only with tile_warpgroup and one key buffer}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<grouped = true, group = 2, subgroup = 32, lanes = 128, matrix = true, tile_rows = 64, tile_keys = 64, tile_stages = 2, tile_warpgroup = true, tile_shared_query = true>} : tensor<1x4x100x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x100x64xbf16>
  return %o : tensor<1x4x100x64xbf16>
}

// -----

func.func @units_not_tile(%q: tensor<1x4x1x64xbf16>, %k: tensor<1x2x100x64xbf16>, %v: tensor<1x2x100x64xbf16>) -> tensor<1x4x1x64xbf16> {
  // expected-error @+1 {{expected tile_stages, tile_warpgroup, tile_shared_query and tile_units only on a tile schedule}}
  %o = poot.attention %q, %k, %v {scale = 0.125 : f64, n_rep = 2 : i64, poot.schedule = #poot.attention_schedule<lanes = 64, tile_units = 132>} : tensor<1x4x1x64xbf16>, tensor<1x2x100x64xbf16>, tensor<1x2x100x64xbf16> -> tensor<1x4x1x64xbf16>
  return %o : tensor<1x4x1x64xbf16>
}
