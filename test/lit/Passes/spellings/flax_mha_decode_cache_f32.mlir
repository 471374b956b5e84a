// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Flax linen 0.8 MultiHeadDotProductAttention(decode=True) on one token:
// the cache is updated by lax.dynamic_update_slice(cached_key, key, (0,
// cur_index, 0, 0)); mask = combine_masks(None, broadcast_to(arange(
// max_length) <= cur_index, (B, 1, 1, max_length))); then
// dot_product_attention_weights: query / sqrt(depth), einsum('...qhd,
// ...khd->...hqk'), jnp.where(mask, w, finfo(f32).min), jax.nn.softmax,
// einsum('...hqk,...khd->...qhd'). B = 2, H = 3, D = 40, max_length = 10,
// cur_index in [0, 10).

// CHECK-LABEL: func.func @flax_mha_decode_cache_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal from pos{{$}}
func.func @flax_mha_decode_cache_f32(%q: tensor<2x1x3x40xf32>, %kn: tensor<2x1x3x40xf32>,
                                     %vn: tensor<2x1x3x40xf32>, %ck: tensor<2x10x3x40xf32>,
                                     %cv: tensor<2x10x3x40xf32>,
                                     %cur: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 10>})
    -> tensor<2x1x3x40xf32> {
  %z0 = poot.constant dense<0> : tensor<i32>
  %k = poot.dynamic_update_slice %ck[%z0, %cur, %z0, %z0], %kn : tensor<2x10x3x40xf32>, tensor<2x1x3x40xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %v = poot.dynamic_update_slice %cv[%z0, %cur, %z0, %z0], %vn : tensor<2x10x3x40xf32>, tensor<2x1x3x40xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %ar = poot.iota {dim = 0 : i64} : tensor<10xi32>
  %le = poot.compare le, %ar, %cur : tensor<10xi32>, tensor<i32>
  %m4 = poot.broadcast %le {shape = array<i64: 2, 1, 1, 10>} : tensor<10xi1>
  %sd = poot.constant dense<6.32455532> : tensor<f32>
  %qs = poot.div %q, %sd : tensor<2x1x3x40xf32>, tensor<f32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x3x40xf32>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x10x3x40xf32>
  %w = poot.matmul %qh, %kh : tensor<2x3x1x40xf32>, tensor<2x3x40x10xf32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %wm = poot.select %m4, %w, %min : tensor<2x1x1x10xi1>, tensor<2x3x1x10xf32>, tensor<f32>
  %mx = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x3x1x10xf32>
  %d = poot.sub %wm, %mx : tensor<2x3x1x10xf32>, tensor<2x3x1x1xf32>
  %e = poot.exp %d : tensor<2x3x1x10xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x1x10xf32>
  %p = poot.div %e, %zs : tensor<2x3x1x10xf32>, tensor<2x3x1x1xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x3x40xf32>
  %oh = poot.matmul %p, %vh : tensor<2x3x1x10xf32>, tensor<2x3x10x40xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x1x40xf32>
  return %o : tensor<2x1x3x40xf32>
}
