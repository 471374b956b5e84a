// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// KerasHub Gemma 2 on the JAX backend (keras-team/keras-hub
// keras_hub/src/models/gemma/gemma_attention.py, CachedGemmaAttention
// ._compute_attention, non-fused path, and _mask_sliding_window), filling
// the cache from a prompt (cache_update_index = 0): the decoder block's
// compute_causal_mask (transformer_layer_utils.py): i = arange(T, f32) +
// cast(cache_index, f32), j = arange(S, f32), i[:, None] >= j, broadcast
// [B, T, S]; the sliding window: all_ones = ones((S, S), bool),
// triu(all_ones, -W + 1) * tril(all_ones, W - 1) (jnp.triu / jnp.tril select
// against tri(k) = iota0 + k >= iota1; bool * is logical and), sliced at
// (cache_update_index, 0), logical_and with the causal mask; q *=
// 1/sqrt(head_dim); q reshaped [b, t, K, G, h]; einsum("btkgh,bskh->bkgts");
// softcap: divide by 50, tanh, multiply by 50; keras.layers.Softmax(axis=-1)
// with mask[:, None, None]: where(mask, x, -1e9), jax.nn.softmax, then
// where(mask, probs, 0.0); einsum("bkgts,bskh->btkgh"), reshaped [b, t, H,
// h]. B = 1, T = S = 8, H = 4, K = 2, h = 16, W = 4, f32.

// Strongest form: the float arange compare is the causal band, the window
// band ANDed to it; the -1e9 fill hides keys exactly (every row keeps its own
// key, the softcapped scores are within 50), so the trailing where(mask, p, 0)
// by the same condition changes no weight.
// CHECK-LABEL: func.func @keras_hub_gemma2_sliding_softcap_mask_zero_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64, softcap = 5.000000e+01 : f64, window = 4 : i64} : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, softcap 50, causal, window 4; the mask after the softmax changes no weight{{$}}
func.func @keras_hub_gemma2_sliding_softcap_mask_zero_f32(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>,
                                                          %v: tensor<1x8x2x16xf32>) -> tensor<1x8x4x16xf32> {
  // compute_causal_mask(batch, 8, 8, cache_index = 0)
  %ia = poot.iota {dim = 0 : i64} : tensor<8xf32>
  %ci = poot.constant dense<0.0> : tensor<f32>
  %i1 = poot.add %ia, %ci : tensor<8xf32>, tensor<f32>
  %i = poot.reshape %i1 : tensor<8xf32> -> tensor<8x1xf32>
  %j = poot.iota {dim = 0 : i64} : tensor<8xf32>
  %cm = poot.compare ge, %i, %j : tensor<8x1xf32>, tensor<8xf32>
  %cm3 = poot.reshape %cm : tensor<8x8xi1> -> tensor<1x8x8xi1>
  // _mask_sliding_window
  %ones = poot.constant dense<true> : tensor<8x8xi1>
  %fls = poot.constant dense<false> : tensor<8x8xi1>
  %r = poot.iota {dim = 0 : i64} : tensor<8x8xi32>
  %c = poot.iota {dim = 1 : i64} : tensor<8x8xi32>
  %km4 = poot.constant dense<-4> : tensor<i32>
  %ru = poot.add %r, %km4 : tensor<8x8xi32>, tensor<i32>
  %triu_tri = poot.compare ge, %ru, %c : tensor<8x8xi32>, tensor<8x8xi32>
  %triu = poot.select %triu_tri, %fls, %ones : tensor<8x8xi1>, tensor<8x8xi1>, tensor<8x8xi1>
  %k3 = poot.constant dense<3> : tensor<i32>
  %rl = poot.add %r, %k3 : tensor<8x8xi32>, tensor<i32>
  %tril_tri = poot.compare ge, %rl, %c : tensor<8x8xi32>, tensor<8x8xi32>
  %tril = poot.select %tril_tri, %ones, %fls : tensor<8x8xi1>, tensor<8x8xi1>, tensor<8x8xi1>
  %band = poot.and %triu, %tril : tensor<8x8xi1>, tensor<8x8xi1>
  %bs = poot.slice %band {start = array<i64: 0, 0>, limit = array<i64: 8, 8>, step = array<i64: 1, 1>} : tensor<8x8xi1>
  %b3 = poot.reshape %bs : tensor<8x8xi1> -> tensor<1x8x8xi1>
  %amask = poot.and %cm3, %b3 : tensor<1x8x8xi1>, tensor<1x8x8xi1>
  // attention
  %qn = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %qn : tensor<1x8x4x16xf32>, tensor<f32>
  %q5 = poot.reshape %qs : tensor<1x8x4x16xf32> -> tensor<1x8x2x2x16xf32>
  %qh = poot.transpose %q5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x8x2x2x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x2x16xf32>
  %kg = poot.reshape %kt : tensor<1x2x16x8xf32> -> tensor<1x2x1x16x8xf32>
  %lg = poot.matmul %qh, %kg : tensor<1x2x2x8x16xf32>, tensor<1x2x1x16x8xf32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %l1 = poot.div %lg, %cap : tensor<1x2x2x8x8xf32>, tensor<f32>
  %l2 = poot.tanh %l1 : tensor<1x2x2x8x8xf32>
  %l3 = poot.mul %l2, %cap : tensor<1x2x2x8x8xf32>, tensor<f32>
  %m5 = poot.reshape %amask : tensor<1x8x8xi1> -> tensor<1x1x1x8x8xi1>
  %big = poot.constant dense<-1.0e+09> : tensor<f32>
  %x = poot.select %m5, %l3, %big : tensor<1x1x1x8x8xi1>, tensor<1x2x2x8x8xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 4 : i64, keepdim} : tensor<1x2x2x8x8xf32>
  %d = poot.sub %x, %mx : tensor<1x2x2x8x8xf32>, tensor<1x2x2x8x1xf32>
  %e = poot.exp %d : tensor<1x2x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x2x8x8xf32>
  %sm = poot.div %e, %z : tensor<1x2x2x8x8xf32>, tensor<1x2x2x8x1xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %p = poot.select %m5, %sm, %zero : tensor<1x1x1x8x8xi1>, tensor<1x2x2x8x8xf32>, tensor<f32>
  %vt = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xf32>
  %vg = poot.reshape %vt : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %og = poot.matmul %p, %vg : tensor<1x2x2x8x8xf32>, tensor<1x2x1x8x16xf32>
  %ot = poot.transpose %og {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x2x2x8x16xf32>
  %o = poot.reshape %ot : tensor<1x8x2x2x16xf32> -> tensor<1x8x4x16xf32>
  return %o : tensor<1x8x4x16xf32>
}
