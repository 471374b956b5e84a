// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Gemma (google-deepmind/gemma gemma/gm/nn/_modules.py, Attention.__call__)
// decoding one token with a KV cache, a Gemma 2 global layer with GQA and
// the logit softcap: query_scaled = query_proj * query_pre_attn_scalar;
// update_index = end_index % cache_size, key/value written by
// lax.dynamic_update_slice(cache, new, (0, update_index, 0, 0)); use_gqa:
// query_scaled.reshape(b, t, K, G, h), logits = einsum('BTKGH,BSKH->BTKGS')
// (a dot_general over batch dims B, K, transposed to BTKGS), reshaped (b, t,
// K*G, s); tanh(logits / cap) * cap; padded_logits = where(expand_dims(
// attn_mask, -2), logits, K_MASK = -2.3819763e38) with attn_mask [B, T, S]
// the bool input the transformer computes; jax.nn.softmax(axis=-1)
// .astype(bf16); probs reshaped (b, t, K, G, s), einsum('BTKGS,BSKH->BTKGH'),
// reshaped (b, t, K*G, h). B = 1, T = 1, N = 4, K = 2, h = 32, cache 12,
// softcap 50, bf16.

// Strongest form the graph allows: the dot_general's layout ops at one row
// and one batch are one reshape, so n_rep 2 and the softcap are read; the
// mask is the attn_mask input, so it stays a tensor (K_MASK absorbs every
// score).
// CHECK-LABEL: func.func @gemma_deepmind_gqa_cache_softcap_decode_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x1x12xbf16>) {n_rep = 2 : i64, scale = 0.1767578125 : f64, softcap = 5.000000e+01 : f64} : tensor<1x4x1x32xbf16>, tensor<1x2x12x32xbf16>, tensor<1x2x12x32xbf16> -> tensor<1x4x1x32xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.176758, softcap 50, tensor mask; the select fill -2.37932e+38 absorbs every score, so it is the additive mask of that fill{{$}}
func.func @gemma_deepmind_gqa_cache_softcap_decode_bf16(
    %q: tensor<1x1x4x32xbf16>, %kn: tensor<1x1x2x32xbf16>, %vn: tensor<1x1x2x32xbf16>,
    %ck: tensor<1x12x2x32xbf16>, %cv: tensor<1x12x2x32xbf16>,
    %end_index: tensor<i32> {poot.range = array<i64: 0, 100>},
    %attn_mask: tensor<1x1x12xi1>) -> tensor<1x1x4x32xbf16> {
  %qps = poot.constant dense<0.176776695> : tensor<bf16>
  %qsc = poot.mul %q, %qps : tensor<1x1x4x32xbf16>, tensor<bf16>
  %cs = poot.constant dense<12> : tensor<i32>
  %ui0 = poot.div %end_index, %cs : tensor<i32>, tensor<i32>
  %ui1 = poot.mul %ui0, %cs : tensor<i32>, tensor<i32>
  %ui = poot.sub %end_index, %ui1 : tensor<i32>, tensor<i32>
  %z0 = poot.constant dense<0> : tensor<i32>
  %v = poot.dynamic_update_slice %cv[%z0, %ui, %z0, %z0], %vn : tensor<1x12x2x32xbf16>, tensor<1x1x2x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %k = poot.dynamic_update_slice %ck[%z0, %ui, %z0, %z0], %kn : tensor<1x12x2x32xbf16>, tensor<1x1x2x32xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %q5 = poot.reshape %qsc : tensor<1x1x4x32xbf16> -> tensor<1x1x2x2x32xbf16>
  // dot_general: batch (B, K), lhs free (T, G), rhs free (S)
  %qb = poot.transpose %q5 {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<1x1x2x2x32xbf16>
  %qm = poot.reshape %qb : tensor<1x2x1x2x32xbf16> -> tensor<1x2x2x32xbf16>
  %kb = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x12x2x32xbf16>
  %lg = poot.matmul %qm, %kb : tensor<1x2x2x32xbf16>, tensor<1x2x32x12xbf16>
  %lg5 = poot.reshape %lg : tensor<1x2x2x12xbf16> -> tensor<1x2x1x2x12xbf16>
  %lgt = poot.transpose %lg5 {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<1x2x1x2x12xbf16>
  %logits = poot.reshape %lgt : tensor<1x1x2x2x12xbf16> -> tensor<1x1x4x12xbf16>
  %cap = poot.constant dense<50.0> : tensor<bf16>
  %l1 = poot.div %logits, %cap : tensor<1x1x4x12xbf16>, tensor<bf16>
  %l2 = poot.tanh %l1 : tensor<1x1x4x12xbf16>
  %l3 = poot.mul %l2, %cap : tensor<1x1x4x12xbf16>, tensor<bf16>
  %am = poot.reshape %attn_mask : tensor<1x1x12xi1> -> tensor<1x1x1x12xi1>
  %kmask = poot.constant dense<-2.38197633E+38> : tensor<bf16>
  %pl = poot.select %am, %l3, %kmask : tensor<1x1x1x12xi1>, tensor<1x1x4x12xbf16>, tensor<bf16>
  %m = poot.reduce_max %pl {axis = 3 : i64, keepdim} : tensor<1x1x4x12xbf16>
  %d = poot.sub %pl, %m : tensor<1x1x4x12xbf16>, tensor<1x1x4x1xbf16>
  %e = poot.exp %d : tensor<1x1x4x12xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x4x12xbf16>
  %probs = poot.div %e, %z : tensor<1x1x4x12xbf16>, tensor<1x1x4x1xbf16>
  %p5 = poot.reshape %probs : tensor<1x1x4x12xbf16> -> tensor<1x1x2x2x12xbf16>
  %pb = poot.transpose %p5 {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<1x1x2x2x12xbf16>
  %pm = poot.reshape %pb : tensor<1x2x1x2x12xbf16> -> tensor<1x2x2x12xbf16>
  %vb = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x12x2x32xbf16>
  %en = poot.matmul %pm, %vb : tensor<1x2x2x12xbf16>, tensor<1x2x12x32xbf16>
  %en5 = poot.reshape %en : tensor<1x2x2x32xbf16> -> tensor<1x2x1x2x32xbf16>
  %ent = poot.transpose %en5 {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<1x2x1x2x32xbf16>
  %o = poot.reshape %ent : tensor<1x1x2x2x32xbf16> -> tensor<1x1x4x32xbf16>
  return %o : tensor<1x1x4x32xbf16>
}
