// RUN: poot-opt %s --split-input-file --verify-diagnostics

// Every diagnostic of poot.block_topk and poot.selected_attention.

func.func @topk_rank(%s: tensor<2x1x3x64xf32>) {
  // expected-error @+1 {{expected scores of rank 3 [B, Lq, Lk], got rank 4}}
  %0 = poot.block_topk %s {ratio = 4 : i64, k = 2 : i64} : tensor<2x1x3x64xf32> -> tensor<2x3x2xi32>
  return
}

// -----

func.func @topk_ratio(%s: tensor<2x3x64xf32>) {
  // expected-error @+1 {{expected a ratio dividing the 64 keys, got 5}}
  %0 = poot.block_topk %s {ratio = 5 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  return
}

// -----

func.func @topk_ratio_zero(%s: tensor<2x3x64xf32>) {
  // expected-error @+1 {{expected a ratio dividing the 64 keys, got 0}}
  %0 = poot.block_topk %s {ratio = 0 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  return
}

// -----

func.func @topk_k(%s: tensor<2x3x64xf32>) {
  // expected-error @+1 {{expected k in [1, 16], got 17}}
  %0 = poot.block_topk %s {ratio = 4 : i64, k = 17 : i64} : tensor<2x3x64xf32> -> tensor<2x3x17xi32>
  return
}

// -----

func.func @topk_pos(%s: tensor<2x3x64xf32>, %pos: tensor<3xi32>) {
  // expected-error @+1 {{expected pos as a scalar or [2], got 'tensor<3xi32>'}}
  %0 = poot.block_topk %s pos(%pos : tensor<3xi32>) {ratio = 4 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi32>
  return
}

// -----

func.func @topk_result(%s: tensor<2x3x64xf32>) {
  // expected-error @+1 {{expected blocks [2, 3, 2], got 'tensor<2x3x3xi32>'}}
  %0 = poot.block_topk %s {ratio = 4 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x3xi32>
  return
}

// -----

func.func @topk_result_type(%s: tensor<2x3x64xf32>) {
  // expected-error @+1 {{result #0 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = poot.block_topk %s {ratio = 4 : i64, k = 2 : i64} : tensor<2x3x64xf32> -> tensor<2x3x2xi64>
  return
}

// -----

func.func @sel_q_rank(%q: tensor<4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected q of rank 4 [B, Hq, Lq, Dk], got rank 3}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_types(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xbf16>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected q, k and v of one element type, got 'f32', 'bf16' and 'f32'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xbf16>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_nrep(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected n_rep dividing 4 query heads, got 3}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 3 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_read(%q: tensor<2x4x1x32xf32>, %k: tensor<128x2x32xf32>, %v: tensor<128x2x16xf32>, %blocks: tensor<2x1x2xi32>, %read: tensor<3x64xi32>) {
  // expected-error @+1 {{expected read map [2, Lk], got 'tensor<3x64xi32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks read(%read : tensor<3x64xi32>) {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<128x2x32xf32>, tensor<128x2x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_key_pool(%q: tensor<2x4x1x32xf32>, %k: tensor<128x4x32xf32>, %v: tensor<128x2x16xf32>, %blocks: tensor<2x1x2xi32>, %read: tensor<2x64xi32>) {
  // expected-error @+1 {{expected key pool [S, 2, 32], got 'tensor<128x4x32xf32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks read(%read : tensor<2x64xi32>) {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<128x4x32xf32>, tensor<128x2x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_value_pool(%q: tensor<2x4x1x32xf32>, %k: tensor<128x2x32xf32>, %v: tensor<64x2x16xf32>, %blocks: tensor<2x1x2xi32>, %read: tensor<2x64xi32>) {
  // expected-error @+1 {{expected value pool [128, 2, Dv], got 'tensor<64x2x16xf32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks read(%read : tensor<2x64xi32>) {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<128x2x32xf32>, tensor<64x2x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_kv_rank(%q: tensor<2x4x1x32xf32>, %k: tensor<128x2x32xf32>, %v: tensor<128x2x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected k and v of rank 4, got ranks 3 and 3}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<128x2x32xf32>, tensor<128x2x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_k(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x16xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected k [2, 2, Lk, 32], got 'tensor<2x2x64x16xf32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x16xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_v(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x32x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected v [2, 2, 64, Dv], got 'tensor<2x2x32x16xf32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x32x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_ratio(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected a ratio dividing the 64 keys, got 6}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 6 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_blocks(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x3x2xi32>) {
  // expected-error @+1 {{expected blocks [2, 1, K] with K >= 1, got 'tensor<2x3x2xi32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x3x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_blocks_empty(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x0xi32>) {
  // expected-error @+1 {{expected blocks [2, 1, K] with K >= 1, got 'tensor<2x1x0xi32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x0xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_blocks_type(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi64>) {
  // expected-error @+1 {{operand #3 must be statically shaped tensor of 32-bit signless integer values}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi64> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_pos(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>, %pos: tensor<2x1xi32>) {
  // expected-error @+1 {{expected pos as a scalar or [2], got 'tensor<2x1xi32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks pos(%pos : tensor<2x1xi32>) {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_softcap(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected softcap > 0, got -1}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, softcap = -1.0 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x16xf32>
  return
}

// -----

func.func @sel_result(%q: tensor<2x4x1x32xf32>, %k: tensor<2x2x64x32xf32>, %v: tensor<2x2x64x16xf32>, %blocks: tensor<2x1x2xi32>) {
  // expected-error @+1 {{expected result [2, 4, 1, 16] of 'f32', got 'tensor<2x4x1x32xf32>'}}
  %0 = poot.selected_attention %q, %k, %v, %blocks {scale = 0.125 : f64, n_rep = 2 : i64, ratio = 4 : i64} : tensor<2x4x1x32xf32>, tensor<2x2x64x32xf32>, tensor<2x2x64x16xf32>, tensor<2x1x2xi32> -> tensor<2x4x1x32xf32>
  return
}
