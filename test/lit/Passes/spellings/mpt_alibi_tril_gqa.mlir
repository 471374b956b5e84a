// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// llm-foundry / HF MPT scaled_multihead_dot_product_attention with GQA and
// ALiBi: q = rearrange(query, 'b s (h d) -> b h s d'), k = rearrange(key,
// 'b s (h d) -> b h d s', h=kv_n_heads) (pre-transposed), v likewise
// 'b h s d'; k.repeat_interleave(n_heads // kv_n_heads, dim=1) and v too;
// attn_weight = q.matmul(k) * softmax_scale; attn_bias = build_alibi_bias:
// arange(1 - s, 1).view(1, 1, 1, s) * slopes (1 / 2^(8 (h+1) / H)); added;
// causal: attn_weight.new_ones(s, s, float16).tril().to(bool), inverted,
// [-s_q:, -s_k:], masked_fill(.., finfo(f32).min); softmax(dim=-1);
// matmul(v); rearrange 'b h s d -> b s (h d)'. GQA 4/2, B = 1, S = 6, D = 40.

// CHECK-LABEL: func.func @mpt_alibi_tril_gqa
// The bias slope * (t - (S - 1)) is slope * (t - i) plus slope * (i - S + 1),
// constant along each row: ALiBi, with the causal mask proven and the
// finite fill dropped (every row keeps key 0).
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{.+}}, %{{.+}}, %{{.+}} {alibi_slopes = array<f64: 2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03>, causal, n_rep = 2 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.158114, causal, alibi
func.func @mpt_alibi_tril_gqa(%query: tensor<1x6x160xf32>, %key: tensor<1x6x80xf32>,
                              %value: tensor<1x6x80xf32>) -> tensor<1x6x160xf32> {
  %q4 = poot.reshape %query : tensor<1x6x160xf32> -> tensor<1x6x4x40xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x40xf32>
  %k4 = poot.reshape %key : tensor<1x6x80xf32> -> tensor<1x6x2x40xf32>
  %kt = poot.transpose %k4 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x6x2x40xf32>
  %v4 = poot.reshape %value : tensor<1x6x80xf32> -> tensor<1x6x2x40xf32>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x40xf32>
  %k5 = poot.reshape %kt : tensor<1x2x40x6xf32> -> tensor<1x2x1x40x6xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 40, 6>} : tensor<1x2x1x40x6xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x40x6xf32> -> tensor<1x4x40x6xf32>
  %v5 = poot.reshape %vh : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 6, 40>} : tensor<1x2x1x6x40xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x6x40xf32> -> tensor<1x4x6x40xf32>
  %s = poot.matmul %q, %kr : tensor<1x4x6x40xf32>, tensor<1x4x40x6xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x6x6xf32>, tensor<f32>
  %ai = poot.iota {dim = 3 : i64} : tensor<1x1x1x6xi32>
  %off = poot.constant dense<-5> : tensor<i32>
  %ab = poot.add %ai, %off : tensor<1x1x1x6xi32>, tensor<i32>
  %abf = poot.convert %ab : tensor<1x1x1x6xi32> -> tensor<1x1x1x6xf32>
  %slopes = poot.constant dense<[[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]]> : tensor<1x4x1x1xf32>
  %bias = poot.mul %abf, %slopes : tensor<1x1x1x6xf32>, tensor<1x4x1x1xf32>
  %sb = poot.add %ss, %bias : tensor<1x4x6x6xf32>, tensor<1x4x1x6xf32>
  %ones = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<6x6xf16>
  %cb = poot.convert %ones : tensor<6x6xf16> -> tensor<6x6xi1>
  %ncb = poot.not %cb : tensor<6x6xi1>
  %nc4 = poot.reshape %ncb : tensor<6x6xi1> -> tensor<1x1x6x6xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %nc4, %min, %sb : tensor<1x1x6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %sm, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x6x6xf32>, tensor<1x4x6x40xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x40xf32>
  %o3 = poot.reshape %ot : tensor<1x6x4x40xf32> -> tensor<1x6x160xf32>
  return %o3 : tensor<1x6x160xf32>
}
