// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Google flaxformer (flaxformer/components/attention/dense_attention.py,
// MultiHeadDotProductAttention.__call__ with decode=True, and
// dot_product_attention with rescale_logits=True, float32_logits=True),
// dtype bf16, one decode step: the cache is kept length-last
// [batch, heads, head_dim, length] (swap_dims); update_cache_decode:
// one_hot_indices = jax.nn.one_hot(cur_index, length, bf16); key =
// cached_key + moveaxis(key, -3, -1) * one_hot_indices (likewise value);
// moveaxis(key, -1, -3) back to [batch, length, heads, head_dim]; the
// decode mask combine_masks(None, broadcast_to(arange(length),
// (B, 1, 1, length)) <= reshape(cur_index, (-1, 1, 1, 1))) as float32;
// the relative bias row einsum('bq,bhqk->bhk', onehot(cur_index), bias)
// expanded at 2; attention_bias = lax.select(mask > 0, full(0).astype(bf16),
// full(-1e10).astype(bf16)); combine_biases(attention_bias, bias) (a bf16
// sum). dot_product_attention: query / sqrt(depth).astype(bf16); query and
// key astype(f32); einsum('...qhd,...khd->...hqk') in f32; + bias
// .astype(f32); jax.nn.softmax(...).astype(bf16); einsum('...hqk,...khd
// ->...qhd', weights, value). The relative bias is an arbitrary tensor
// added beside the finite fill, so the mask stays a tensor (no bound
// keeps a hidden key hidden). B = 2, H = 2, D = 16, length = 8,
// cur_index in [0, 8).

// CHECK-LABEL: func.func @flaxformer_decode_length_last_cache_one_hot_bias_select_1e10_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @flaxformer_decode_length_last_cache_one_hot_bias_select_1e10_bf16(
    %query: tensor<2x1x2x16xbf16>, %key_new: tensor<2x1x2x16xbf16>, %value_new: tensor<2x1x2x16xbf16>,
    %cached_key: tensor<2x2x16x8xbf16>, %cached_value: tensor<2x2x16x8xbf16>,
    %rel_bias: tensor<1x2x8x8xbf16>,
    %cur_index: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>}) -> tensor<2x1x2x16xbf16> {
  // one_hot_indices = jax.nn.one_hot(cur_index, length, dtype=key.dtype)
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi32>
  %hot = poot.compare eq, %ar, %cur_index : tensor<8xi32>, tensor<i32>
  %one_hot = poot.convert %hot : tensor<8xi1> -> tensor<8xbf16>
  // key = cached_key + moveaxis(key, -3, -1) * one_hot_indices; moveaxis back
  %kt = poot.transpose %key_new {perm = array<i64: 0, 2, 3, 1>} : tensor<2x1x2x16xbf16>
  %kh = poot.mul %kt, %one_hot : tensor<2x2x16x1xbf16>, tensor<8xbf16>
  %kc = poot.add %cached_key, %kh : tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
  %key = poot.transpose %kc {perm = array<i64: 0, 3, 1, 2>} : tensor<2x2x16x8xbf16>
  %vt = poot.transpose %value_new {perm = array<i64: 0, 2, 3, 1>} : tensor<2x1x2x16xbf16>
  %vh = poot.mul %vt, %one_hot : tensor<2x2x16x1xbf16>, tensor<8xbf16>
  %vc = poot.add %cached_value, %vh : tensor<2x2x16x8xbf16>, tensor<2x2x16x8xbf16>
  %value = poot.transpose %vc {perm = array<i64: 0, 3, 1, 2>} : tensor<2x2x16x8xbf16>
  // mask = broadcast_to(arange(length), (B, 1, 1, length)) <= reshape(cur_index, (-1, 1, 1, 1))
  %ar4 = poot.reshape %ar : tensor<8xi32> -> tensor<1x1x1x8xi32>
  %arb = poot.broadcast %ar4 {shape = array<i64: 2, 1, 1, 8>} : tensor<1x1x1x8xi32>
  %ci = poot.reshape %cur_index : tensor<i32> -> tensor<1x1x1x1xi32>
  %keep = poot.compare le, %arb, %ci : tensor<2x1x1x8xi32>, tensor<1x1x1x1xi32>
  // combine_masks(...): mask.astype(float32)
  %maskf = poot.convert %keep : tensor<2x1x1x8xi1> -> tensor<2x1x1x8xf32>
  // bias = einsum('bq, bhqk->bhk', onehot(cur_index, length), bias); expand_dims(bias, 2)
  %oh4 = poot.reshape %one_hot : tensor<8xbf16> -> tensor<1x1x1x8xbf16>
  %bias = poot.matmul %oh4, %rel_bias : tensor<1x1x1x8xbf16>, tensor<1x2x8x8xbf16>
  // attention_bias = lax.select(mask > 0, full(0.).astype(bf16), full(-1e10).astype(bf16))
  %zf = poot.constant dense<0.0> : tensor<f32>
  %gt = poot.compare gt, %maskf, %zf : tensor<2x1x1x8xf32>, tensor<f32>
  %zb = poot.constant dense<0.0> : tensor<2x1x1x8xbf16>
  %big = poot.constant dense<-1.0e+10> : tensor<2x1x1x8xbf16>
  %abias = poot.select %gt, %zb, %big : tensor<2x1x1x8xi1>, tensor<2x1x1x8xbf16>, tensor<2x1x1x8xbf16>
  // combine_biases(attention_bias, bias)
  %tbias = poot.add %abias, %bias : tensor<2x1x1x8xbf16>, tensor<1x2x1x8xbf16>
  // dot_product_attention: query / jnp.sqrt(depth).astype(dtype); float32_logits
  %sq = poot.constant dense<4.0> : tensor<bf16>
  %qs = poot.div %query, %sq : tensor<2x1x2x16xbf16>, tensor<bf16>
  %qf = poot.convert %qs : tensor<2x1x2x16xbf16> -> tensor<2x1x2x16xf32>
  %kf = poot.convert %key : tensor<2x8x2x16xbf16> -> tensor<2x8x2x16xf32>
  // einsum('...qhd,...khd->...hqk', query, key)
  %qh = poot.transpose %qf {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x16xf32>
  %khT = poot.transpose %kf {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x2x16xf32>
  %w = poot.matmul %qh, %khT : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  // attn_weights + bias.astype(attn_weights.dtype)
  %tbf = poot.convert %tbias : tensor<2x2x1x8xbf16> -> tensor<2x2x1x8xf32>
  %x = poot.add %w, %tbf : tensor<2x2x1x8xf32>, tensor<2x2x1x8xf32>
  // jax.nn.softmax(attn_weights).astype(dtype)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %x, %mx : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %zs : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %pb = poot.convert %p : tensor<2x2x1x8xf32> -> tensor<2x2x1x8xbf16>
  // einsum('...hqk,...khd->...qhd', attn_weights, value)
  %vhd = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xbf16>
  %o0 = poot.matmul %pb, %vhd : tensor<2x2x1x8xbf16>, tensor<2x2x8x16xbf16>
  %o = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x1x16xbf16>
  return %o : tensor<2x1x2x16xbf16>
}
