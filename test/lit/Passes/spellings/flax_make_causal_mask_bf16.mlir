// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// flax.linen MultiHeadDotProductAttention(dtype=bf16) with
// mask = nn.make_causal_mask(x): idxs = broadcast_to(arange(L), x.shape);
// make_attention_mask(idxs, idxs, jnp.greater_equal): expand_dims(q, -1) >=
// expand_dims(k, -2), expand_dims(-3), astype(float32); in
// dot_product_attention_weights: query / sqrt(depth).astype(dtype);
// einsum('...qhd,...khd->...hqk'); big_neg = finfo(bf16).min;
// jnp.where(mask, w, big_neg) (the f32 0/1 mask as the condition);
// jax.nn.softmax(w).astype(dtype); einsum('...hqk,...khd->...qhd').
// B = 2, L = 5, H = 2, D = 64.

// CHECK-LABEL: func.func @flax_make_causal_mask_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, causal
func.func @flax_make_causal_mask_bf16(%q: tensor<2x5x2x64xbf16>, %k: tensor<2x5x2x64xbf16>,
                                      %v: tensor<2x5x2x64xbf16>) -> tensor<2x5x2x64xbf16> {
  %ar = poot.iota {dim = 1 : i64} : tensor<2x5xi32>
  %qi = poot.reshape %ar : tensor<2x5xi32> -> tensor<2x5x1xi32>
  %ki = poot.reshape %ar : tensor<2x5xi32> -> tensor<2x1x5xi32>
  %ge = poot.compare ge, %qi, %ki : tensor<2x5x1xi32>, tensor<2x1x5xi32>
  %ge4 = poot.reshape %ge : tensor<2x5x5xi1> -> tensor<2x1x5x5xi1>
  %mf = poot.convert %ge4 : tensor<2x1x5x5xi1> -> tensor<2x1x5x5xf32>
  %cond = poot.convert %mf : tensor<2x1x5x5xf32> -> tensor<2x1x5x5xi1>
  %c = poot.constant dense<8.0> : tensor<bf16>
  %qs = poot.div %q, %c : tensor<2x5x2x64xbf16>, tensor<bf16>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x64xbf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x5x2x64xbf16>
  %w = poot.matmul %qh, %kt : tensor<2x2x5x64xbf16>, tensor<2x2x64x5xbf16>
  %neg = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %wm = poot.select %cond, %w, %neg : tensor<2x1x5x5xi1>, tensor<2x2x5x5xbf16>, tensor<bf16>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x2x5x5xbf16>
  %d = poot.sub %wm, %m : tensor<2x2x5x5xbf16>, tensor<2x2x5x1xbf16>
  %e = poot.exp %d : tensor<2x2x5x5xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x5x5xbf16>
  %p = poot.div %e, %z : tensor<2x2x5x5xbf16>, tensor<2x2x5x1xbf16>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x64xbf16>
  %oh = poot.matmul %p, %vh : tensor<2x2x5x5xbf16>, tensor<2x2x5x64xbf16>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x5x64xbf16>
  return %o : tensor<2x5x2x64xbf16>
}
