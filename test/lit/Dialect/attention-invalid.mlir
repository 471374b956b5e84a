// RUN: poot-opt %s --split-input-file --verify-diagnostics

// Every diagnostic of the fused ops' typing rules (poot.rope's type
// inference, poot.attention's verifier).

//===----------------------------------------------------------------------===//
// poot.rope
//===----------------------------------------------------------------------===//

func.func @rope_style(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{expected style "half" or "interleaved", got "spiral"}}
  %0 = poot.rope %x, %c, %s {style = "spiral", rotary_dim = 8 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

func.func @rope_rank0(%x: tensor<f32>, %c: tensor<f32>, %s: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{expected x of rank >= 1, got 0}}
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 2 : i64} : tensor<f32>, tensor<f32>, tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @rope_dim_odd(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{expected an even rotary_dim in [2, 8], got 7}}
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 7 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

func.func @rope_dim_wide(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{expected an even rotary_dim in [2, 8], got 10}}
  %0 = poot.rope %x, %c, %s {style = "interleaved", rotary_dim = 10 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

func.func @rope_table_type(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf16>, %s: tensor<4x8xf16>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{expected cos/sin element type 'f32', got 'f16'}}
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 8 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf16>, tensor<4x8xf16>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

func.func @rope_table_shape(%x: tensor<1x2x4x8xf32>, %c: tensor<3x8xf32>, %s: tensor<3x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{expected cos/sin broadcastable to the rotary part with last dim 8, got 'tensor<3x8xf32>'}}
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 8 : i64} : tensor<1x2x4x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

// -----

func.func @rope_table_width(%x: tensor<1x2x4x8xf32>, %c: tensor<4x8xf32>, %s: tensor<4x8xf32>) -> tensor<1x2x4x8xf32> {
  // expected-error @+1 {{expected cos/sin broadcastable to the rotary part with last dim 4, got 'tensor<4x8xf32>'}}
  %0 = poot.rope %x, %c, %s {style = "half", rotary_dim = 4 : i64} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  return %0 : tensor<1x2x4x8xf32>
}

//===----------------------------------------------------------------------===//
// poot.attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_q_rank(%q: tensor<2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected q of rank 4 [B, Hq, Lq, Dk], got rank 3}}
  %0 = poot.attention %q, %k, %v {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_element_types(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected q, k and v of one element type, got 'f32', 'f16' and 'f32'}}
  %0 = poot.attention %q, %k, %v {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_n_rep(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x1x16xf32> {
  // expected-error @+1 {{expected n_rep dividing 4 query heads, got 3}}
  %0 = poot.attention %q, %k, %v {n_rep = 3 : i64, scale = 1.0 : f64} : tensor<1x4x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x1x16xf32>
  return %0 : tensor<1x4x1x16xf32>
}

// -----

func.func @attention_n_rep_zero(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x1x16xf32> {
  // expected-error @+1 {{expected n_rep dividing 4 query heads, got 0}}
  %0 = poot.attention %q, %k, %v {n_rep = 0 : i64, scale = 1.0 : f64} : tensor<1x4x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x1x16xf32>
  return %0 : tensor<1x4x1x16xf32>
}

// -----

func.func @attention_paged_shared(%q: tensor<1x2x1x16xf32>, %k: tensor<8x2x16xf32>, %ks: tensor<1x1x4x4xf32>, %v: tensor<8x2x16xf32>, %read: tensor<1x4xi32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected no k_shared with a paged key}}
  %0 = poot.attention %q, %k, %v k_shared(%ks : tensor<1x1x4x4xf32>) read(%read : tensor<1x4xi32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_read_map(%q: tensor<1x2x1x16xf32>, %k: tensor<8x2x16xf32>, %v: tensor<8x2x16xf32>, %read: tensor<2x4xi32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected read map [1, Lk], got 'tensor<2x4xi32>'}}
  %0 = poot.attention %q, %k, %v read(%read : tensor<2x4xi32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<8x2x16xf32>, tensor<8x2x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_key_pool(%q: tensor<1x2x1x16xf32>, %k: tensor<8x2x8xf32>, %v: tensor<8x2x16xf32>, %read: tensor<1x4xi32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected key pool [S, 2, 16], got 'tensor<8x2x8xf32>'}}
  %0 = poot.attention %q, %k, %v read(%read : tensor<1x4xi32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<8x2x8xf32>, tensor<8x2x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_value_pool(%q: tensor<1x2x1x16xf32>, %k: tensor<8x2x16xf32>, %v: tensor<6x2x16xf32>, %read: tensor<1x4xi32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected value pool [8, 2, Dv], got 'tensor<6x2x16xf32>'}}
  %0 = poot.attention %q, %k, %v read(%read : tensor<1x4xi32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<8x2x16xf32>, tensor<6x2x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_kv_rank(%q: tensor<1x2x1x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected k and v of rank 4, got ranks 3 and 4}}
  %0 = poot.attention %q, %k, %v {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_k_shared(%q: tensor<1x2x1x24xf32>, %k: tensor<1x2x8x16xf32>, %ks: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected k_shared [1, 1, 8, s] of 'f32', got 'tensor<1x2x8x8xf32>'}}
  %0 = poot.attention %q, %k, %v k_shared(%ks : tensor<1x2x8x8xf32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x24xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_k_shape(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x1x16xf32> {
  // expected-error @+1 {{expected k [1, 2, Lk, 16], got 'tensor<1x4x8x16xf32>'}}
  %0 = poot.attention %q, %k, %v {n_rep = 2 : i64, scale = 1.0 : f64} : tensor<1x4x1x16xf32>, tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x1x16xf32>
  return %0 : tensor<1x4x1x16xf32>
}

// -----

func.func @attention_k_width_split(%q: tensor<1x2x1x24xf32>, %k: tensor<1x2x8x24xf32>, %ks: tensor<1x1x8x8xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected k [1, 2, Lk, 16], got 'tensor<1x2x8x24xf32>'}}
  %0 = poot.attention %q, %k, %v k_shared(%ks : tensor<1x1x8x8xf32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x24xf32>, tensor<1x2x8x24xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_v_shape(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x6x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected v [1, 2, 8, Dv], got 'tensor<1x2x6x16xf32>'}}
  %0 = poot.attention %q, %k, %v {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x6x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_mask_heads(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %m: tensor<1x2x1x8xf32>) -> tensor<1x4x1x16xf32> {
  // expected-error @+1 {{expected mask [1|1, 4|1, 1, 8] of 'f32', got 'tensor<1x2x1x8xf32>'}}
  %0 = poot.attention %q, %k, %v mask(%m : tensor<1x2x1x8xf32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x4x1x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x1x16xf32>
  return %0 : tensor<1x4x1x16xf32>
}

// -----

func.func @attention_mask_type(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<1x1x1x8xf16>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected mask [1|1, 2|1, 1, 8] of 'f32', got 'tensor<1x1x1x8xf16>'}}
  %0 = poot.attention %q, %k, %v mask(%m : tensor<1x1x1x8xf16>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_mask_rank(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %m: tensor<1x8xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected mask [1|1, 2|1, 1, 8] of 'f32', got 'tensor<1x8xf32>'}}
  %0 = poot.attention %q, %k, %v mask(%m : tensor<1x8xf32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_len(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>, %len: tensor<1xi32>) -> tensor<2x2x1x16xf32> {
  // expected-error @+1 {{expected len [2], got 'tensor<1xi32>'}}
  %0 = poot.attention %q, %k, %v len(%len : tensor<1xi32>) {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<2x2x1x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x1x16xf32>
  return %0 : tensor<2x2x1x16xf32>
}

// -----

func.func @attention_pos(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>, %pos: tensor<2x1xi32>) -> tensor<2x2x1x16xf32> {
  // expected-error @+1 {{expected pos as a scalar or [2], got 'tensor<2x1xi32>'}}
  %0 = poot.attention %q, %k, %v pos(%pos : tensor<2x1xi32>) {causal, n_rep = 1 : i64, scale = 1.0 : f64} : tensor<2x2x1x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x1x16xf32>
  return %0 : tensor<2x2x1x16xf32>
}

// -----

func.func @attention_pos_rows(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>, %pos: tensor<3xi32>) -> tensor<2x2x1x16xf32> {
  // expected-error @+1 {{expected pos as a scalar or [2], got 'tensor<3xi32>'}}
  %0 = poot.attention %q, %k, %v pos(%pos : tensor<3xi32>) {causal, n_rep = 1 : i64, scale = 1.0 : f64} : tensor<2x2x1x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x1x16xf32>
  return %0 : tensor<2x2x1x16xf32>
}

// -----

func.func @attention_alibi(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected 2 alibi slopes, got 3}}
  %0 = poot.attention %q, %k, %v {alibi_slopes = array<f64: 0.5, 0.25, 0.125>, n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_window(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected window >= 1, got 0}}
  %0 = poot.attention %q, %k, %v {causal, n_rep = 1 : i64, scale = 1.0 : f64, window = 0 : i64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_softcap(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected softcap > 0, got -5}}
  %0 = poot.attention %q, %k, %v {n_rep = 1 : i64, scale = 1.0 : f64, softcap = -5.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_result(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x32xf32>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected result [1, 2, 1, 32] of 'f32', got 'tensor<1x2x1x16xf32>'}}
  %0 = poot.attention %q, %k, %v {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x32xf32> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}

// -----

func.func @attention_result_type(%q: tensor<1x2x1x16xf16>, %k: tensor<1x2x8x16xf16>, %v: tensor<1x2x8x16xf16>) -> tensor<1x2x1x16xf32> {
  // expected-error @+1 {{expected result [1, 2, 1, 16] of 'f16', got 'tensor<1x2x1x16xf32>'}}
  %0 = poot.attention %q, %k, %v {n_rep = 1 : i64, scale = 1.0 : f64} : tensor<1x2x1x16xf16>, tensor<1x2x8x16xf16>, tensor<1x2x8x16xf16> -> tensor<1x2x1x16xf32>
  return %0 : tensor<1x2x1x16xf32>
}
