// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// google-research/big_vision PaliGemma 2: big_vision/models/proj/paligemma/
// paligemma.py (embed_image_and_text pads mask_ar with 0 and input_mask
// with True over the 3 image tokens; make_attn_mask: cumsum =
// jnp.cumsum(mask_ar, axis=1), attn_mask = cumsum[:, None, :] <=
// cumsum[:, :, None], valid_mask = input_mask[:, None, :] *
// input_mask[:, :, None], logical_and) feeding big_vision/models/ppp/
// gemma.py (Attention.__call__ with positions = arange(T)): _apply_rope on
// [B, T, N, H] with half-width sin/cos of positions / 10000**(2i/H) and
// jnp.split halves; q *= head_dim**-0.5; q rearranged "B T (K G) H ->
// B T K G H"; logits = einsum("BTKGH,BSKH->BKGTS"); the Gemma 2 softcap
// tanh(logits / 50) * 50; jnp.where(attn_mask[:, :, None], logits,
// -2.3819763e38); jax.nn.softmax; einsum("BKGTS,BSKH->BTKGH", probs, v).
// The cumsum (XLA's reduce_window sum) is spelled as the masked row sum it
// computes. A prefix-LM over run-time mask_ar and padding: the mask stays
// a tensor (the fill absorbs every score, so it is the additive mask).
// GQA 4/2, B = 2, T = 8 (3 image + 5 text tokens), H = 32.

// CHECK-LABEL: func.func @big_vision_paligemma_prefix_cumsum_gqa_softcap_f32
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 2 : i64, scale = 0.1767{{[0-9]*}} : f64, softcap = 5.000000e+01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.176777, softcap 50, tensor mask
func.func @big_vision_paligemma_prefix_cumsum_gqa_softcap_f32(
    %q0: tensor<2x8x4x32xf32>, %k0: tensor<2x8x2x32xf32>, %v: tensor<2x8x2x32xf32>,
    %text_mask: tensor<2x5xi1>,
    %text_ar: tensor<2x5xi32> {poot.range = array<i64: 0, 2>}) -> tensor<2x8x4x32xf32> {
  // embed_image_and_text: pad over the image tokens
  %zar = poot.constant dense<0> : tensor<2x3xi32>
  %mask_ar = poot.concat %zar, %text_ar {axis = 1 : i64} : tensor<2x3xi32>, tensor<2x5xi32>
  %tim = poot.constant dense<true> : tensor<2x3xi1>
  %input_mask = poot.concat %tim, %text_mask {axis = 1 : i64} : tensor<2x3xi1>, tensor<2x5xi1>
  // cumsum = jnp.cumsum(mask_ar, axis=1)
  %ci = poot.iota {dim = 1 : i64} : tensor<1x8x8xi32>
  %cj = poot.iota {dim = 2 : i64} : tensor<1x8x8xi32>
  %win = poot.compare le, %cj, %ci : tensor<1x8x8xi32>, tensor<1x8x8xi32>
  %ar3 = poot.reshape %mask_ar : tensor<2x8xi32> -> tensor<2x1x8xi32>
  %zi = poot.constant dense<0> : tensor<i32>
  %arw = poot.select %win, %ar3, %zi : tensor<1x8x8xi1>, tensor<2x1x8xi32>, tensor<i32>
  %cumsum = poot.reduce_sum %arw {axis = 2 : i64} : tensor<2x8x8xi32>
  // attn_mask = cumsum[:, None, :] <= cumsum[:, :, None]
  %csk = poot.reshape %cumsum : tensor<2x8xi32> -> tensor<2x1x8xi32>
  %csq = poot.reshape %cumsum : tensor<2x8xi32> -> tensor<2x8x1xi32>
  %am = poot.compare le, %csk, %csq : tensor<2x1x8xi32>, tensor<2x8x1xi32>
  // valid_mask = input_mask[:, None, :] * input_mask[:, :, None]
  %imk = poot.reshape %input_mask : tensor<2x8xi1> -> tensor<2x1x8xi1>
  %imq = poot.reshape %input_mask : tensor<2x8xi1> -> tensor<2x8x1xi1>
  %valid = poot.and %imk, %imq : tensor<2x1x8xi1>, tensor<2x8x1xi1>
  %mask = poot.and %am, %valid : tensor<2x8x8xi1>, tensor<2x8x8xi1>
  // _apply_rope with positions = arange(T)[None]
  %fi = poot.iota {dim = 0 : i64} : tensor<16xf32>
  %fe = poot.constant dense<6.250000e-02> : tensor<f32>
  %fexp = poot.mul %fi, %fe : tensor<16xf32>, tensor<f32>
  %wl = poot.constant dense<1.000000e+04> : tensor<f32>
  %timescale = poot.pow %wl, %fexp : tensor<f32>, tensor<16xf32>
  %pos = poot.iota {dim = 1 : i64} : tensor<1x8xi32>
  %posf = poot.convert %pos : tensor<1x8xi32> -> tensor<1x8xf32>
  %pos3 = poot.reshape %posf : tensor<1x8xf32> -> tensor<1x8x1xf32>
  %ts3 = poot.reshape %timescale : tensor<16xf32> -> tensor<1x1x16xf32>
  %rad = poot.div %pos3, %ts3 : tensor<1x8x1xf32>, tensor<1x1x16xf32>
  %rad4 = poot.reshape %rad : tensor<1x8x16xf32> -> tensor<1x8x1x16xf32>
  %sin = poot.sin %rad4 : tensor<1x8x1x16xf32>
  %cos = poot.cos %rad4 : tensor<1x8x1x16xf32>
  %q1 = poot.slice %q0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 8, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x4x32xf32>
  %q2 = poot.slice %q0 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 8, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x4x32xf32>
  %qa = poot.mul %q1, %cos : tensor<2x8x4x16xf32>, tensor<1x8x1x16xf32>
  %qb = poot.mul %q2, %sin : tensor<2x8x4x16xf32>, tensor<1x8x1x16xf32>
  %qfirst = poot.sub %qa, %qb : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>
  %qc = poot.mul %q2, %cos : tensor<2x8x4x16xf32>, tensor<1x8x1x16xf32>
  %qd = poot.mul %q1, %sin : tensor<2x8x4x16xf32>, tensor<1x8x1x16xf32>
  %qsecond = poot.add %qc, %qd : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>
  %qr = poot.concat %qfirst, %qsecond {axis = 3 : i64} : tensor<2x8x4x16xf32>, tensor<2x8x4x16xf32>
  %hs = poot.constant dense<0.176776695> : tensor<f32>
  %q = poot.mul %qr, %hs : tensor<2x8x4x32xf32>, tensor<f32>
  %k1 = poot.slice %k0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 8, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x2x32xf32>
  %k2 = poot.slice %k0 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 8, 2, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x2x32xf32>
  %ka = poot.mul %k1, %cos : tensor<2x8x2x16xf32>, tensor<1x8x1x16xf32>
  %kb = poot.mul %k2, %sin : tensor<2x8x2x16xf32>, tensor<1x8x1x16xf32>
  %kfirst = poot.sub %ka, %kb : tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>
  %kc = poot.mul %k2, %cos : tensor<2x8x2x16xf32>, tensor<1x8x1x16xf32>
  %kd = poot.mul %k1, %sin : tensor<2x8x2x16xf32>, tensor<1x8x1x16xf32>
  %ksecond = poot.add %kc, %kd : tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>
  %k = poot.concat %kfirst, %ksecond {axis = 3 : i64} : tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>
  // rearrange "B T (K G) H -> B T K G H"; einsum("BTKGH,BSKH->BKGTS")
  %q5 = poot.reshape %q : tensor<2x8x4x32xf32> -> tensor<2x8x2x2x32xf32>
  %qt = poot.transpose %q5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<2x8x2x2x32xf32>
  %kt4 = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x2x32xf32>
  %kt = poot.reshape %kt4 : tensor<2x2x32x8xf32> -> tensor<2x2x1x32x8xf32>
  %logits0 = poot.matmul %qt, %kt : tensor<2x2x2x8x32xf32>, tensor<2x2x1x32x8xf32>
  // attn_logits_softcap
  %cap = poot.constant dense<5.000000e+01> : tensor<f32>
  %l1 = poot.div %logits0, %cap : tensor<2x2x2x8x8xf32>, tensor<f32>
  %l2 = poot.tanh %l1 : tensor<2x2x2x8x8xf32>
  %logits = poot.mul %l2, %cap : tensor<2x2x2x8x8xf32>, tensor<f32>
  // jnp.where(attn_mask[:, :, None, :, :], logits, big_neg)
  %m5 = poot.reshape %mask : tensor<2x8x8xi1> -> tensor<2x1x1x8x8xi1>
  %big_neg = poot.constant dense<-2.3819763e+38> : tensor<f32>
  %ml = poot.select %m5, %logits, %big_neg : tensor<2x1x1x8x8xi1>, tensor<2x2x2x8x8xf32>, tensor<f32>
  // jax.nn.softmax
  %mx = poot.reduce_max %ml {axis = 4 : i64, keepdim} : tensor<2x2x2x8x8xf32>
  %d = poot.sub %ml, %mx : tensor<2x2x2x8x8xf32>, tensor<2x2x2x8x1xf32>
  %e = poot.exp %d : tensor<2x2x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<2x2x2x8x8xf32>
  %p = poot.div %e, %z : tensor<2x2x2x8x8xf32>, tensor<2x2x2x8x1xf32>
  // einsum("BKGTS,BSKH->BTKGH", probs, v)
  %vt4 = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x32xf32>
  %vt = poot.reshape %vt4 : tensor<2x2x8x32xf32> -> tensor<2x2x1x8x32xf32>
  %enc0 = poot.matmul %p, %vt : tensor<2x2x2x8x8xf32>, tensor<2x2x1x8x32xf32>
  %enc1 = poot.transpose %enc0 {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<2x2x2x8x32xf32>
  %enc = poot.reshape %enc1 : tensor<2x8x2x2x32xf32> -> tensor<2x8x4x32xf32>
  return %enc : tensor<2x8x4x32xf32>
}
