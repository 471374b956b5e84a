// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// MLX 0.2x mlx.core.fast.scaled_dot_product_attention, the fallback of
// fast.cpp with mask="causal" and GQA: q = multiply(scale, q);
// q = unflatten(q, 1, {n_kv_heads, n_repeats}); k, v = expand_dims(.., 2);
// scores = matmul(q, swapaxes(k, -1, -2)); the causal mask
// greater_equal(arange(offset, offset + L)[:, None], arange(kL)[None])
// with offset = kL - L; scores = where(mask, scores, finfo(f16).min);
// softmax(scores, -1, precise=true) (f32 inside); matmul(scores, v);
// flatten(out, 1, 2). GQA 6/2, D = 96, L = 3, kL = 8.

// CHECK-LABEL: func.func @mlx_sdpa_fallback_gqa_offset_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-SAME: n_rep = 3 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.102{{[0-9]*}}, causal at offset 5{{$}}
func.func @mlx_sdpa_fallback_gqa_offset_f16(%q: tensor<1x6x3x96xf16>, %k: tensor<1x2x8x96xf16>,
                                            %v: tensor<1x2x8x96xf16>) -> tensor<1x6x3x96xf16> {
  %c = poot.constant dense<0.102062076> : tensor<f16>
  %qs = poot.mul %c, %q : tensor<f16>, tensor<1x6x3x96xf16>
  %q5 = poot.reshape %qs : tensor<1x6x3x96xf16> -> tensor<1x2x3x3x96xf16>
  %k5 = poot.reshape %k : tensor<1x2x8x96xf16> -> tensor<1x2x1x8x96xf16>
  %v5 = poot.reshape %v : tensor<1x2x8x96xf16> -> tensor<1x2x1x8x96xf16>
  %kt = poot.transpose %k5 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x8x96xf16>
  %s = poot.matmul %q5, %kt : tensor<1x2x3x3x96xf16>, tensor<1x2x1x96x8xf16>
  %qa = poot.iota {dim = 0 : i64} : tensor<3xi32>
  %off = poot.constant dense<5> : tensor<i32>
  %qo = poot.add %qa, %off : tensor<3xi32>, tensor<i32>
  %qi = poot.reshape %qo : tensor<3xi32> -> tensor<3x1xi32>
  %ka = poot.iota {dim = 0 : i64} : tensor<8xi32>
  %ki = poot.reshape %ka : tensor<8xi32> -> tensor<1x8xi32>
  %keep = poot.compare ge, %qi, %ki : tensor<3x1xi32>, tensor<1x8xi32>
  %min = poot.constant dense<-65504.0> : tensor<f16>
  %sm = poot.select %keep, %s, %min : tensor<3x8xi1>, tensor<1x2x3x3x8xf16>, tensor<f16>
  %x = poot.convert %sm : tensor<1x2x3x3x8xf16> -> tensor<1x2x3x3x8xf32>
  %mx = poot.reduce_max %x {axis = 4 : i64, keepdim} : tensor<1x2x3x3x8xf32>
  %d = poot.sub %x, %mx : tensor<1x2x3x3x8xf32>, tensor<1x2x3x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x3x8xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x3x8xf32>
  %p = poot.div %e, %z : tensor<1x2x3x3x8xf32>, tensor<1x2x3x3x1xf32>
  %ph = poot.convert %p : tensor<1x2x3x3x8xf32> -> tensor<1x2x3x3x8xf16>
  %o5 = poot.matmul %ph, %v5 : tensor<1x2x3x3x8xf16>, tensor<1x2x1x8x96xf16>
  %o = poot.reshape %o5 : tensor<1x2x3x3x96xf16> -> tensor<1x6x3x96xf16>
  return %o : tensor<1x6x3x96xf16>
}
