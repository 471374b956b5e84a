// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// google/flax 0.10.4, flax/nnx/nn/attention.py MultiHeadAttention.__call__
// with decode=True after init_cache (one token, mask=None), and
// dot_product_attention / dot_product_attention_weights there, with
// jax 0.5.3's jax.nn.softmax, f32; the LinearGeneral projections are left
// outside (query, key, value [B, 1, H, D] are the inputs). cur_index =
// self.cache_index.value (an int32 nnx.Cache); indices = (zero, cur_index,
// zero, zero); key = lax.dynamic_update_slice(self.cached_key.value, key,
// indices), value likewise; the caches take the new values and
// cache_index += 1 (state written back); mask = combine_masks(mask,
// jnp.broadcast_to(jnp.arange(max_length) <= cur_index, (B, 1, 1,
// max_length))): with mask None the list holds one mask and it comes back
// .astype(float32). dot_product_attention_weights: query = query /
// jnp.sqrt(depth).astype(dtype); jnp.einsum('...qhd,...khd->...hqk')
// (dot_general over the batch (b, h): [b, h, q, k], no transpose after);
// big_neg = jnp.finfo(f32).min; jnp.where(mask, attn_weights, big_neg)
// (jnp's _where takes a non-bool condition as lax.ne(mask, 0) and
// broadcasts the three operands); jax.nn.softmax -> _softmax(x, -1, None,
// initial=-inf): x_max = jnp.max(x, -1, initial=-inf, keepdims=True)
// (lax.reduce max, then lax.max(-inf, .), then expand_dims), exp(x -
// x_max) / jnp.sum(.., -1, keepdims=True); .astype(f32); dropout 0;
// jnp.einsum('...hqk,...khd->...qhd', attn_weights, value) (dot_general
// over (b, h), then to [b, q, h, d]). B = 2, H = 4, D = 8, max_length = 8,
// cache_index in [0, 8).
//
// Strongest form: poot.attention q, k', v' over the updated caches
// pos(cache_index) {causal, n_rep = 1, scale = 1/sqrt(8)}: the mask is
// t <= pos on the one query row, key 0 always stays visible, so the
// finfo.min fill hides exactly what -inf would.

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @flax_nnx_mha_decode_dynamic_update_slice_cache_index_combine_masks_astype_f32_where_ne0_finfo_min_softmax_initial_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i32>) {causal, n_rep = 1 : i64, scale = 0.353553{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.353553, causal from pos{{$}}
func.func @flax_nnx_mha_decode_dynamic_update_slice_cache_index_combine_masks_astype_f32_where_ne0_finfo_min_softmax_initial_f32(
    %query: tensor<2x1x4x8xf32>, %key: tensor<2x1x4x8xf32>, %value: tensor<2x1x4x8xf32>,
    %cached_key: tensor<2x8x4x8xf32> {poot.state = "cached_key"},
    %cached_value: tensor<2x8x4x8xf32> {poot.state = "cached_value"},
    %cache_index: tensor<i32> {poot.state = "cache_index", poot.range = array<i64: 0, 8>})
    -> (tensor<2x1x4x8xf32>, tensor<2x8x4x8xf32> {poot.state = "cached_key"},
        tensor<2x8x4x8xf32> {poot.state = "cached_value"},
        tensor<i32> {poot.state = "cache_index"}) {
  // zero = jnp.array(0, dtype=lax.dtype(cur_index.dtype)); indices = (zero,) * len(batch_dims) + (cur_index, zero, zero)
  %zero = poot.constant dense<0> : tensor<i32>
  // key = lax.dynamic_update_slice(self.cached_key.value, key, indices); value likewise
  %k = poot.dynamic_update_slice %cached_key[%zero, %cache_index, %zero, %zero], %key : tensor<2x8x4x8xf32>, tensor<2x1x4x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %v = poot.dynamic_update_slice %cached_value[%zero, %cache_index, %zero, %zero], %value : tensor<2x8x4x8xf32>, tensor<2x1x4x8xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  // self.cache_index.value += 1
  %one_i = poot.constant dense<1> : tensor<i32>
  %next_index = poot.add %cache_index, %one_i : tensor<i32>, tensor<i32>
  // jnp.broadcast_to(jnp.arange(max_length) <= cur_index, tuple(batch_dims) + (1, 1, max_length))
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi32>
  %le = poot.compare le, %ar, %cache_index : tensor<8xi32>, tensor<i32>
  %bm = poot.broadcast %le {shape = array<i64: 2, 1, 1, 8>} : tensor<8xi1>
  // combine_masks(None, ...): mask.astype(float32)
  %mask = poot.convert %bm : tensor<2x1x1x8xi1> -> tensor<2x1x1x8xf32>
  // query = query / jnp.sqrt(depth).astype(dtype)
  %sqrt_depth = poot.constant dense<2.82842708> : tensor<f32>
  %qs = poot.div %query, %sqrt_depth : tensor<2x1x4x8xf32>, tensor<f32>
  // attn_weights = jnp.einsum('...qhd,...khd->...hqk', query, key)
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x4x8xf32>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x4x8xf32>
  %w = poot.matmul %qh, %kh : tensor<2x4x1x8xf32>, tensor<2x4x8x8xf32>
  // big_neg = jnp.finfo(dtype).min; jnp.where(mask, attn_weights, big_neg): lax.ne(mask, 0), broadcast, lax.select
  %c0f = poot.constant dense<0.0> : tensor<f32>
  %cond = poot.compare ne, %mask, %c0f : tensor<2x1x1x8xf32>, tensor<f32>
  %condb = poot.broadcast %cond {shape = array<i64: 2, 4, 1, 8>} : tensor<2x1x1x8xi1>
  %big_neg = poot.constant dense<-3.40282347E+38> : tensor<2x4x1x8xf32>
  %wm = poot.select %condb, %w, %big_neg : tensor<2x4x1x8xi1>, tensor<2x4x1x8xf32>, tensor<2x4x1x8xf32>
  // jax.nn.softmax: x_max = jnp.max(x, -1, initial=-jnp.inf, keepdims=True)
  %r = poot.reduce_max %wm {axis = 3 : i64} : tensor<2x4x1x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %rm = poot.max %ninf, %r : tensor<f32>, tensor<2x4x1xf32>
  %x_max = poot.reshape %rm : tensor<2x4x1xf32> -> tensor<2x4x1x1xf32>
  // unnormalized = jnp.exp(x - x_max); result = unnormalized / jnp.sum(unnormalized, -1, keepdims=True)
  %sh = poot.sub %wm, %x_max : tensor<2x4x1x8xf32>, tensor<2x4x1x1xf32>
  %un = poot.exp %sh : tensor<2x4x1x8xf32>
  %zs = poot.reduce_sum %un {axis = 3 : i64} : tensor<2x4x1x8xf32>
  %z = poot.reshape %zs : tensor<2x4x1xf32> -> tensor<2x4x1x1xf32>
  %p = poot.div %un, %z : tensor<2x4x1x8xf32>, tensor<2x4x1x1xf32>
  // jnp.einsum('...hqk,...khd->...qhd', attn_weights, value)
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x8xf32>
  %o = poot.matmul %p, %vh : tensor<2x4x1x8xf32>, tensor<2x4x8x8xf32>
  %out = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x8xf32>
  return %out, %k, %v, %next_index : tensor<2x1x4x8xf32>, tensor<2x8x4x8xf32>, tensor<2x8x4x8xf32>, tensor<i32>
}
