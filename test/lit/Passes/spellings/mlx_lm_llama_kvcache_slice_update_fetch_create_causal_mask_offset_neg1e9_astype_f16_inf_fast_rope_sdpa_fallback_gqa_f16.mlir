// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ml-explore/mlx-examples, llms/mlx_lm (v0.19-0.20): models/llama.py
// Attention.__call__ with models/cache.py KVCache and models/base.py
// create_attention_mask / create_causal_mask, on the CPU stream (where
// mx.fast.rope and mx.fast.scaled_dot_product_attention run the fallbacks
// of mlx/fast.cpp), f16, a prefill chunk of N = 3 tokens after 5 cached
// ones. The offset is the cache's Python int (cache[0].offset = 5), so it
// is a trace-time constant, not a graph input. Mask: rinds =
// mx.arange(offset + N), linds = mx.arange(offset, offset + N);
// linds[:, None] < rinds[None]; mask * -1e9 (bool promoted to f32, -0.0 on
// the kept keys); .astype(h.dtype): -1e9 overflows to -inf in f16. Layer:
// q/k/v_proj outputs (the inputs) .reshape(B, L, H, -1).transpose(0, 2, 1,
// 3); nn.RoPE -> mx.fast.rope(x, 32, traditional=False, base=10000,
// scale=1.0, offset=5), fallback: x viewed [-1, N, D]; positions =
// arange(offset, offset + N, f16) * scale; inv_freqs = exp(arange(0, -16,
// -1, f16) * (log(base) / 16)); theta = positions[:, None] * inv_freqs;
// x1 * cos - x2 * sin, x1 * sin + x2 * cos on the halves, concatenated.
// KVCache.update_and_fetch: self.keys[..., 5:8, :] = keys (the step buffer,
// step 256 shrunk to 16 here), return self.keys[..., :8, :] (values alike).
// mx.fast.scaled_dot_product_attention(q, k, v, scale=head_dim**-0.5,
// mask=mask), fallback: q = multiply(array(scale, f16), q); q reshaped
// [B, n_kv_heads, n_repeats, L, D], k, v expand_dims(.., 2) (each key head
// repeated over its group by the matmul's broadcast); scores = matmul(q,
// swapaxes(k, -1, -2)); add(scores, mask) (a 2-D mask, added as it is);
// softmax(-1, precise=true): f32 inside, max, exp(x - max), normalizer =
// 1 / sum, exp * normalizer, back to f16; matmul(scores, v); reshape [B, H,
// L, D]; .transpose(0, 2, 1, 3).reshape(B, L, -1). B = 1, 6 query heads
// over 2 key/value heads, D = 32.
//
// Strongest form: two half-style rotaries (rotary_dim 32) on the new q and
// k, then poot.attention over the updated buffer's first 8 rows {causal at
// offset 5, n_rep = 3, scale = 0.1767578125 (the f16 scale)}; the -inf
// mask is the band t <= i + 5; no tensor mask.

// CHECK-LABEL: func.func @mlx_lm_llama_kvcache_slice_update_fetch_create_causal_mask_offset_neg1e9_astype_f16_inf_fast_rope_sdpa_fallback_gqa_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 3 : i64, scale = 0.1767578125 : f64} : tensor<1x6x3x32xf16>, tensor<1x2x8x32xf16>, tensor<1x2x8x32xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.176758, causal at offset 5{{$}}
func.func @mlx_lm_llama_kvcache_slice_update_fetch_create_causal_mask_offset_neg1e9_astype_f16_inf_fast_rope_sdpa_fallback_gqa_f16(
    %q_proj: tensor<1x3x192xf16>, %k_proj: tensor<1x3x64xf16>, %v_proj: tensor<1x3x64xf16>,
    %cache_keys: tensor<1x2x16x32xf16>, %cache_values: tensor<1x2x16x32xf16>) -> tensor<1x3x192xf16> {
  // create_attention_mask -> create_causal_mask(3, 5) * -1e9, .astype(f16)
  %rinds = poot.iota {dim = 0 : i64} : tensor<8xi32>
  %la = poot.iota {dim = 0 : i64} : tensor<3xi32>
  %off = poot.constant dense<5> : tensor<i32>
  %linds = poot.add %la, %off : tensor<3xi32>, tensor<i32>
  %l2 = poot.reshape %linds : tensor<3xi32> -> tensor<3x1xi32>
  %r2 = poot.reshape %rinds : tensor<8xi32> -> tensor<1x8xi32>
  %mb = poot.compare lt, %l2, %r2 : tensor<3x1xi32>, tensor<1x8xi32>
  %mbf = poot.convert %mb : tensor<3x8xi1> -> tensor<3x8xf32>
  %neg = poot.constant dense<-1.0e+09> : tensor<f32>
  %m32 = poot.mul %mbf, %neg : tensor<3x8xf32>, tensor<f32>
  %mask = poot.convert %m32 : tensor<3x8xf32> -> tensor<3x8xf16>
  // queries.reshape(B, L, n_heads, -1).transpose(0, 2, 1, 3), keys and values likewise
  %q4 = poot.reshape %q_proj : tensor<1x3x192xf16> -> tensor<1x3x6x32xf16>
  %queries = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x6x32xf16>
  %k4 = poot.reshape %k_proj : tensor<1x3x64xf16> -> tensor<1x3x2x32xf16>
  %keys = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x2x32xf16>
  %v4 = poot.reshape %v_proj : tensor<1x3x64xf16> -> tensor<1x3x2x32xf16>
  %values = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x2x32xf16>
  // mx.fast.rope fallback: positions = arange(offset, N, f16) * scale
  %pi = poot.iota {dim = 0 : i64} : tensor<3xf16>
  %offh = poot.constant dense<5.0> : tensor<f16>
  %pa = poot.add %pi, %offh : tensor<3xf16>, tensor<f16>
  %rscale = poot.constant dense<1.0> : tensor<f16>
  %positions = poot.mul %pa, %rscale : tensor<3xf16>, tensor<f16>
  // inv_freqs = exp(arange(0, -half_dims, -1, f16) * (log(base) / half_dims))
  %fi = poot.iota {dim = 0 : i64} : tensor<16xf16>
  %m1 = poot.constant dense<-1.0> : tensor<f16>
  %fa = poot.mul %fi, %m1 : tensor<16xf16>, tensor<f16>
  %lb = poot.constant dense<0.575646273> : tensor<f16>
  %fl = poot.mul %fa, %lb : tensor<16xf16>, tensor<f16>
  %inv_freqs = poot.exp %fl : tensor<16xf16>
  // theta = expand_dims(positions, 1) * expand_dims(inv_freqs, 0); cos, sin
  %pe = poot.reshape %positions : tensor<3xf16> -> tensor<3x1xf16>
  %fe = poot.reshape %inv_freqs : tensor<16xf16> -> tensor<1x16xf16>
  %theta = poot.mul %pe, %fe : tensor<3x1xf16>, tensor<1x16xf16>
  %coss = poot.cos %theta : tensor<3x16xf16>
  %sins = poot.sin %theta : tensor<3x16xf16>
  // rope on the queries: x viewed [-1, N, D], halves, concatenate, reshape back
  %qx = poot.reshape %queries : tensor<1x6x3x32xf16> -> tensor<6x3x32xf16>
  %qx1 = poot.slice %qx {start = array<i64: 0, 0, 0>, limit = array<i64: 6, 3, 16>, step = array<i64: 1, 1, 1>} : tensor<6x3x32xf16>
  %qx2 = poot.slice %qx {start = array<i64: 0, 0, 16>, limit = array<i64: 6, 3, 32>, step = array<i64: 1, 1, 1>} : tensor<6x3x32xf16>
  %qa = poot.mul %qx1, %coss : tensor<6x3x16xf16>, tensor<3x16xf16>
  %qb = poot.mul %qx2, %sins : tensor<6x3x16xf16>, tensor<3x16xf16>
  %qo1 = poot.sub %qa, %qb : tensor<6x3x16xf16>, tensor<6x3x16xf16>
  %qc = poot.mul %qx1, %sins : tensor<6x3x16xf16>, tensor<3x16xf16>
  %qd = poot.mul %qx2, %coss : tensor<6x3x16xf16>, tensor<3x16xf16>
  %qo2 = poot.add %qc, %qd : tensor<6x3x16xf16>, tensor<6x3x16xf16>
  %qcat = poot.concat %qo1, %qo2 {axis = 2 : i64} : tensor<6x3x16xf16>, tensor<6x3x16xf16>
  %q_rot = poot.reshape %qcat : tensor<6x3x32xf16> -> tensor<1x6x3x32xf16>
  // rope on the keys
  %kx = poot.reshape %keys : tensor<1x2x3x32xf16> -> tensor<2x3x32xf16>
  %kx1 = poot.slice %kx {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 3, 16>, step = array<i64: 1, 1, 1>} : tensor<2x3x32xf16>
  %kx2 = poot.slice %kx {start = array<i64: 0, 0, 16>, limit = array<i64: 2, 3, 32>, step = array<i64: 1, 1, 1>} : tensor<2x3x32xf16>
  %ka = poot.mul %kx1, %coss : tensor<2x3x16xf16>, tensor<3x16xf16>
  %kb = poot.mul %kx2, %sins : tensor<2x3x16xf16>, tensor<3x16xf16>
  %ko1 = poot.sub %ka, %kb : tensor<2x3x16xf16>, tensor<2x3x16xf16>
  %kc = poot.mul %kx1, %sins : tensor<2x3x16xf16>, tensor<3x16xf16>
  %kd = poot.mul %kx2, %coss : tensor<2x3x16xf16>, tensor<3x16xf16>
  %ko2 = poot.add %kc, %kd : tensor<2x3x16xf16>, tensor<2x3x16xf16>
  %kcat = poot.concat %ko1, %ko2 {axis = 2 : i64} : tensor<2x3x16xf16>, tensor<2x3x16xf16>
  %k_rot = poot.reshape %kcat : tensor<2x3x32xf16> -> tensor<1x2x3x32xf16>
  // KVCache.update_and_fetch: self.keys[..., prev:offset, :] = keys; return self.keys[..., :offset, :]
  %z = poot.constant dense<0> : tensor<i32>
  %prev = poot.constant dense<5> : tensor<i32>
  %kbuf = poot.dynamic_update_slice %cache_keys[%z, %z, %prev, %z], %k_rot : tensor<1x2x16x32xf16>, tensor<1x2x3x32xf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %vbuf = poot.dynamic_update_slice %cache_values[%z, %z, %prev, %z], %values : tensor<1x2x16x32xf16>, tensor<1x2x3x32xf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %kf = poot.slice %kbuf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 8, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x16x32xf16>
  %vf = poot.slice %vbuf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 8, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x16x32xf16>
  // fast::scaled_dot_product_attention fallback
  %sc = poot.constant dense<0.1767578125> : tensor<f16>
  %qs = poot.mul %sc, %q_rot : tensor<f16>, tensor<1x6x3x32xf16>
  %q5 = poot.reshape %qs : tensor<1x6x3x32xf16> -> tensor<1x2x3x3x32xf16>
  %k5 = poot.reshape %kf : tensor<1x2x8x32xf16> -> tensor<1x2x1x8x32xf16>
  %v5 = poot.reshape %vf : tensor<1x2x8x32xf16> -> tensor<1x2x1x8x32xf16>
  %kt = poot.transpose %k5 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x8x32xf16>
  %scores = poot.matmul %q5, %kt : tensor<1x2x3x3x32xf16>, tensor<1x2x1x32x8xf16>
  %sm = poot.add %scores, %mask : tensor<1x2x3x3x8xf16>, tensor<3x8xf16>
  // softmax(scores, -1, precise=true)
  %x = poot.convert %sm : tensor<1x2x3x3x8xf16> -> tensor<1x2x3x3x8xf32>
  %mx = poot.reduce_max %x {axis = 4 : i64, keepdim} : tensor<1x2x3x3x8xf32>
  %d = poot.sub %x, %mx : tensor<1x2x3x3x8xf32>, tensor<1x2x3x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x3x8xf32>
  %nz = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x3x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %normalizer = poot.div %one, %nz : tensor<f32>, tensor<1x2x3x3x1xf32>
  %pn = poot.mul %e, %normalizer : tensor<1x2x3x3x8xf32>, tensor<1x2x3x3x1xf32>
  %p = poot.convert %pn : tensor<1x2x3x3x8xf32> -> tensor<1x2x3x3x8xf16>
  %o5 = poot.matmul %p, %v5 : tensor<1x2x3x3x8xf16>, tensor<1x2x1x8x32xf16>
  %o4 = poot.reshape %o5 : tensor<1x2x3x3x32xf16> -> tensor<1x6x3x32xf16>
  // output.transpose(0, 2, 1, 3).reshape(B, L, -1)
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x3x32xf16>
  %out = poot.reshape %ot : tensor<1x3x6x32xf16> -> tensor<1x3x192xf16>
  return %out : tensor<1x3x192xf16>
}
