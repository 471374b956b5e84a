// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// google/trax trax/layers/attention.py: CausalAttention's
// DotProductCausalAttention over SplitIntoHeads(merged_batch_and_head=True)
// ([B, L, H*D] -> reshape, transpose(0, 2, 1, 3), reshape [B*H, L, D]),
// the mask _causal_mask(L) = jnp.tril(jnp.ones((1, L, L), bool)) (a
// trace-time constant), and _per_head_attention: dots = jnp.matmul(q,
// jnp.swapaxes(k, -1, -2)) / jnp.sqrt(d_feature); jnp.where(mask, dots,
// jnp.full_like(dots, -1e9)); attn = jnp.exp(dots - fastmath.logsumexp(
// dots, axis=-1, keepdims=True)) with jax.scipy.special.logsumexp (amax,
// select(isfinite(amax), amax, 0), log(abs(sum(exp(a - amax)))) + amax);
// jnp.matmul(attn, v).astype(f32); MergeHeads. Causal; -1e9 stands for
// -inf since every row keeps its own key. B = 2, H = 2 (rank 3 over
// B*H = 4), L = 7, D = 32.

// CHECK-LABEL: func.func @trax_per_head_attention_where_1e9_logsumexp_causal_f32
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, causal{{$}}
func.func @trax_per_head_attention_where_1e9_logsumexp_causal_f32(
    %xq: tensor<2x7x64xf32>, %xk: tensor<2x7x64xf32>, %xv: tensor<2x7x64xf32>) -> tensor<2x7x64xf32> {
  // SplitIntoHeads
  %q4 = poot.reshape %xq : tensor<2x7x64xf32> -> tensor<2x7x2x32xf32>
  %q4t = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x2x32xf32>
  %q = poot.reshape %q4t : tensor<2x2x7x32xf32> -> tensor<4x7x32xf32>
  %k4 = poot.reshape %xk : tensor<2x7x64xf32> -> tensor<2x7x2x32xf32>
  %k4t = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x2x32xf32>
  %k = poot.reshape %k4t : tensor<2x2x7x32xf32> -> tensor<4x7x32xf32>
  %v4 = poot.reshape %xv : tensor<2x7x64xf32> -> tensor<2x7x2x32xf32>
  %v4t = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x2x32xf32>
  %v = poot.reshape %v4t : tensor<2x2x7x32xf32> -> tensor<4x7x32xf32>
  // _causal_mask(7)
  %mask = poot.constant dense<[[[true, false, false, false, false, false, false], [true, true, false, false, false, false, false], [true, true, true, false, false, false, false], [true, true, true, true, false, false, false], [true, true, true, true, true, false, false], [true, true, true, true, true, true, false], [true, true, true, true, true, true, true]]]> : tensor<1x7x7xi1>
  // _per_head_attention
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x7x32xf32>
  %s0 = poot.matmul %q, %kt : tensor<4x7x32xf32>, tensor<4x32x7xf32>
  %sq = poot.constant dense<5.65685415> : tensor<f32>
  %dots0 = poot.div %s0, %sq : tensor<4x7x7xf32>, tensor<f32>
  %big = poot.constant dense<-1.0e+09> : tensor<f32>
  %dots = poot.select %mask, %dots0, %big : tensor<1x7x7xi1>, tensor<4x7x7xf32>, tensor<f32>
  // jax.scipy.special.logsumexp(dots, axis=-1, keepdims=True)
  %amax0 = poot.reduce_max %dots {axis = 2 : i64, keepdim} : tensor<4x7x7xf32>
  %aabs = poot.abs %amax0 : tensor<4x7x1xf32>
  %inf = poot.constant dense<0x7F800000> : tensor<f32>
  %fin = poot.compare ne, %aabs, %inf : tensor<4x7x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %amax = poot.select %fin, %amax0, %zero : tensor<4x7x1xi1>, tensor<4x7x1xf32>, tensor<f32>
  %sh = poot.sub %dots, %amax : tensor<4x7x7xf32>, tensor<4x7x1xf32>
  %ea = poot.exp %sh : tensor<4x7x7xf32>
  %se0 = poot.reduce_sum %ea {axis = 2 : i64, keepdim} : tensor<4x7x7xf32>
  %se = poot.abs %se0 : tensor<4x7x1xf32>
  %lg = poot.log %se : tensor<4x7x1xf32>
  %lse = poot.add %lg, %amax : tensor<4x7x1xf32>, tensor<4x7x1xf32>
  // attn_strengths = exp(dots - lse)
  %ls = poot.sub %dots, %lse : tensor<4x7x7xf32>, tensor<4x7x1xf32>
  %attn = poot.exp %ls : tensor<4x7x7xf32>
  %a = poot.matmul %attn, %v : tensor<4x7x7xf32>, tensor<4x7x32xf32>
  // MergeHeads
  %a4 = poot.reshape %a : tensor<4x7x32xf32> -> tensor<2x2x7x32xf32>
  %a4t = poot.transpose %a4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x7x32xf32>
  %o = poot.reshape %a4t : tensor<2x7x2x32xf32> -> tensor<2x7x64xf32>
  return %o : tensor<2x7x64xf32>
}
