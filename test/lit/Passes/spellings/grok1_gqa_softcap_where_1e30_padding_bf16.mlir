// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// xai-org/grok-1 model.py (MultiHeadAttention.__call__, with the mask built
// by Transformer.__call__), prefill without memory, bf16 activations, from
// q, k, v after RotaryEmbedding: mask = input_mask[:, None, None, :] *
// jnp.tril(ones((1, 1, T, T))).astype(bf16) (input_mask = tokens >
// pad_token); query_heads reshaped [b, t, kv_h, h // kv_h, d]; attn_logits
// = einsum('...thHd,...Thd->...hHtT', q, k).astype(f32) (the key spread
// over the group axis); attn_logits *= attn_output_multiplier
// (0.08838834764831845); 30 * tanh(attn_logits / 30); mask[:, :, None];
// jnp.where(mask, attn_logits, -1e30) (a float condition, != 0);
// jax.nn.softmax(..).astype(bf16); einsum('...hHtT,...Thd->...thHd', w, v),
// reshape [b, t, h * d]. The softcap bounds every score by 30, so -1e30
// absorbs it and the where is the additive mask select(mask, 0, -1e30),
// also on a row the padding hides whole. B = 1, 4 query heads over 2,
// T = 5, d = 16.

// CHECK-LABEL: func.func @grok1_gqa_softcap_where_1e30_padding_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 2 : i64, scale = 0.08838{{[0-9]*}} : f64, softcap = 3.000000e+01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.0883{{[0-9]*}}, softcap 30, tensor mask
func.func @grok1_gqa_softcap_where_1e30_padding_bf16(
    %query_heads: tensor<1x5x4x16xbf16>, %key_heads: tensor<1x5x2x16xbf16>, %value_heads: tensor<1x5x2x16xbf16>,
    %tokens: tensor<1x5xi32> {poot.range = array<i64: 0, 50>}) -> tensor<1x5x64xbf16> {
  // Transformer.__call__: mask = input_mask[:, None, None, :] * tril(ones)
  %pad = poot.constant dense<0> : tensor<i32>
  %im = poot.compare gt, %tokens, %pad : tensor<1x5xi32>, tensor<i32>
  %imf = poot.convert %im : tensor<1x5xi1> -> tensor<1x5xbf16>
  %im4 = poot.reshape %imf : tensor<1x5xbf16> -> tensor<1x1x1x5xbf16>
  %tril = poot.constant dense<[[[[1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]]]]> : tensor<1x1x5x5xbf16>
  %mask = poot.mul %im4, %tril : tensor<1x1x1x5xbf16>, tensor<1x1x5x5xbf16>
  // query_heads reshaped (b, t, kv_h, h // kv_h, d); einsum('...thHd,...Thd->...hHtT')
  %q5 = poot.reshape %query_heads : tensor<1x5x4x16xbf16> -> tensor<1x5x2x2x16xbf16>
  %qh = poot.transpose %q5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x5x2x2x16xbf16>
  %kt = poot.transpose %key_heads {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x16xbf16>
  %kg = poot.reshape %kt : tensor<1x2x16x5xbf16> -> tensor<1x2x1x16x5xbf16>
  %lg = poot.matmul %qh, %kg : tensor<1x2x2x5x16xbf16>, tensor<1x2x1x16x5xbf16>
  %lf = poot.convert %lg : tensor<1x2x2x5x5xbf16> -> tensor<1x2x2x5x5xf32>
  %mult = poot.constant dense<0.0883883461> : tensor<f32>
  %l1 = poot.mul %lf, %mult : tensor<1x2x2x5x5xf32>, tensor<f32>
  %cap = poot.constant dense<30.0> : tensor<f32>
  %l2 = poot.div %l1, %cap : tensor<1x2x2x5x5xf32>, tensor<f32>
  %l3 = poot.tanh %l2 : tensor<1x2x2x5x5xf32>
  %l4 = poot.mul %cap, %l3 : tensor<f32>, tensor<1x2x2x5x5xf32>
  // mask[:, :, None]; jnp.where(mask, attn_logits, -1e30)
  %m5 = poot.reshape %mask : tensor<1x1x5x5xbf16> -> tensor<1x1x1x5x5xbf16>
  %zb = poot.constant dense<0.0> : tensor<bf16>
  %cond = poot.compare ne, %m5, %zb : tensor<1x1x1x5x5xbf16>, tensor<bf16>
  %big = poot.constant dense<-1.0e+30> : tensor<f32>
  %lm = poot.select %cond, %l4, %big : tensor<1x1x1x5x5xi1>, tensor<1x2x2x5x5xf32>, tensor<f32>
  %mx = poot.reduce_max %lm {axis = 4 : i64, keepdim} : tensor<1x2x2x5x5xf32>
  %d = poot.sub %lm, %mx : tensor<1x2x2x5x5xf32>, tensor<1x2x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x2x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x2x5x5xf32>
  %wf = poot.div %e, %zs : tensor<1x2x2x5x5xf32>, tensor<1x2x2x5x1xf32>
  %w = poot.convert %wf : tensor<1x2x2x5x5xf32> -> tensor<1x2x2x5x5xbf16>
  // einsum('...hHtT,...Thd->...thHd')
  %vt = poot.transpose %value_heads {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  %vg = poot.reshape %vt : tensor<1x2x5x16xbf16> -> tensor<1x2x1x5x16xbf16>
  %a = poot.matmul %w, %vg : tensor<1x2x2x5x5xbf16>, tensor<1x2x1x5x16xbf16>
  %at = poot.transpose %a {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x2x2x5x16xbf16>
  %out = poot.reshape %at : tensor<1x5x2x2x16xbf16> -> tensor<1x5x64xbf16>
  return %out : tensor<1x5x64xbf16>
}
