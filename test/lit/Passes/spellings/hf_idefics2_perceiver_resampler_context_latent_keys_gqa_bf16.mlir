// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers Idefics2 (models/idefics2/modeling_idefics2.py,
// Idefics2PerceiverResampler.forward -> Idefics2PerceiverLayer ->
// Idefics2PerceiverAttention.forward with eager_attention_forward), bf16:
// latents = self.latents.unsqueeze(0).expand(B, n_latents, C); the layer's
// Idefics2RMSNorm on latents and context (to(f32), pow(2).mean(-1),
// x * rsqrt(var + 1e-6), weight * x.to(bf16)); the keys and values read
// the context AND the latents, hidden_states = torch.concat([context,
// latents], dim=-2), while the queries read the latents only; q_proj,
// k_proj, v_proj without bias; view(...).transpose(1, 2) with
// num_key_value_heads = 2 for 4 query heads; repeat_kv; the mask is the
// resampler's: attention_mask (the boolean patch mask) cat'ed with
// torch.ones(B, n_latents) (the latent keys are always visible), then
// _prepare_4d_attention_mask(mask, bf16, tgt_len=n_latents): expand(B, 1,
// 4, 10).to(bf16), inverted = 1.0 - m, masked_fill(inverted.to(bool),
// finfo(bf16).min); eager: matmul(q, k^T) * scaling + mask[:, :, :, :Lk];
// softmax(dim=-1, dtype=f32).to(bf16); matmul(probs, v); transpose(1, 2)
// .reshape(B, 4, 64). B = 2, C = 32, 4 latents, 6 context tokens, head_dim
// 16.

// CHECK-LABEL: func.func @hf_idefics2_perceiver_resampler_context_latent_keys_gqa_bf16
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask({{.+}} : tensor<2x1x4x10xbf16>) {n_rep = 2 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x4x16xbf16>, tensor<2x2x10x16xbf16>, tensor<2x2x10x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, tensor mask{{$}}
func.func @hf_idefics2_perceiver_resampler_context_latent_keys_gqa_bf16(
    %latp: tensor<4x32xbf16>, %ctx: tensor<2x6x32xbf16>, %pmask: tensor<2x6xi1>,
    %lnw: tensor<32xbf16>, %cnw: tensor<32xbf16>,
    %wq: tensor<64x32xbf16>, %wk: tensor<32x32xbf16>, %wv: tensor<32x32xbf16>)
    -> tensor<2x4x64xbf16> {
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %n32 = poot.constant dense<32.0> : tensor<f32>
  // latents = self.latents.unsqueeze(0).expand(...)
  %lat3 = poot.reshape %latp : tensor<4x32xbf16> -> tensor<1x4x32xbf16>
  %lat = poot.broadcast %lat3 {shape = array<i64: 2, 4, 32>} : tensor<1x4x32xbf16>
  // attention_mask = cat([attention_mask, ones(B, n_latents)], -1)
  %ones = poot.constant dense<true> : tensor<2x4xi1>
  %am = poot.concat %pmask, %ones {axis = 1 : i64} : tensor<2x6xi1>, tensor<2x4xi1>
  // _prepare_4d_attention_mask(attention_mask, bf16, tgt_len=4)
  %am4 = poot.reshape %am : tensor<2x10xi1> -> tensor<2x1x1x10xi1>
  %amb = poot.broadcast %am4 {shape = array<i64: 2, 1, 4, 10>} : tensor<2x1x1x10xi1>
  %amf = poot.convert %amb : tensor<2x1x4x10xi1> -> tensor<2x1x4x10xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %inv = poot.sub %one, %amf : tensor<bf16>, tensor<2x1x4x10xbf16>
  %invb = poot.convert %inv : tensor<2x1x4x10xbf16> -> tensor<2x1x4x10xi1>
  %bmin = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %invb, %bmin, %inv : tensor<2x1x4x10xi1>, tensor<bf16>, tensor<2x1x4x10xbf16>
  // input_latents_norm(latents)
  %lf = poot.convert %lat : tensor<2x4x32xbf16> -> tensor<2x4x32xf32>
  %lsq = poot.mul %lf, %lf : tensor<2x4x32xf32>, tensor<2x4x32xf32>
  %lss = poot.reduce_sum %lsq {axis = 2 : i64, keepdim} : tensor<2x4x32xf32>
  %lvar = poot.div %lss, %n32 : tensor<2x4x1xf32>, tensor<f32>
  %lve = poot.add %lvar, %eps : tensor<2x4x1xf32>, tensor<f32>
  %lr = poot.rsqrt %lve : tensor<2x4x1xf32>
  %lxn = poot.mul %lf, %lr : tensor<2x4x32xf32>, tensor<2x4x1xf32>
  %lxb = poot.convert %lxn : tensor<2x4x32xf32> -> tensor<2x4x32xbf16>
  %latn = poot.mul %lnw, %lxb : tensor<32xbf16>, tensor<2x4x32xbf16>
  // input_context_norm(context)
  %cf = poot.convert %ctx : tensor<2x6x32xbf16> -> tensor<2x6x32xf32>
  %csq = poot.mul %cf, %cf : tensor<2x6x32xf32>, tensor<2x6x32xf32>
  %css = poot.reduce_sum %csq {axis = 2 : i64, keepdim} : tensor<2x6x32xf32>
  %cvar = poot.div %css, %n32 : tensor<2x6x1xf32>, tensor<f32>
  %cve = poot.add %cvar, %eps : tensor<2x6x1xf32>, tensor<f32>
  %cr = poot.rsqrt %cve : tensor<2x6x1xf32>
  %cxn = poot.mul %cf, %cr : tensor<2x6x32xf32>, tensor<2x6x1xf32>
  %cxb = poot.convert %cxn : tensor<2x6x32xf32> -> tensor<2x6x32xbf16>
  %ctxn = poot.mul %cnw, %cxb : tensor<32xbf16>, tensor<2x6x32xbf16>
  // hidden_states = torch.concat([context, latents], dim=-2)
  %hs = poot.concat %ctxn, %latn {axis = 1 : i64} : tensor<2x6x32xbf16>, tensor<2x4x32xbf16>
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<64x32xbf16>
  %q0 = poot.matmul %latn, %wqt : tensor<2x4x32xbf16>, tensor<32x64xbf16>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<32x32xbf16>
  %k0 = poot.matmul %hs, %wkt : tensor<2x10x32xbf16>, tensor<32x32xbf16>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<32x32xbf16>
  %v0 = poot.matmul %hs, %wvt : tensor<2x10x32xbf16>, tensor<32x32xbf16>
  %q4 = poot.reshape %q0 : tensor<2x4x64xbf16> -> tensor<2x4x4x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x16xbf16>
  %k4 = poot.reshape %k0 : tensor<2x10x32xbf16> -> tensor<2x10x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x2x16xbf16>
  %v4 = poot.reshape %v0 : tensor<2x10x32xbf16> -> tensor<2x10x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x10x2x16xbf16>
  // repeat_kv(key, 2), repeat_kv(value, 2)
  %k5 = poot.reshape %k : tensor<2x2x10x16xbf16> -> tensor<2x2x1x10x16xbf16>
  %k5b = poot.broadcast %k5 {shape = array<i64: 2, 2, 2, 10, 16>} : tensor<2x2x1x10x16xbf16>
  %kr = poot.reshape %k5b : tensor<2x2x2x10x16xbf16> -> tensor<2x4x10x16xbf16>
  %v5 = poot.reshape %v : tensor<2x2x10x16xbf16> -> tensor<2x2x1x10x16xbf16>
  %v5b = poot.broadcast %v5 {shape = array<i64: 2, 2, 2, 10, 16>} : tensor<2x2x1x10x16xbf16>
  %vr = poot.reshape %v5b : tensor<2x2x2x10x16xbf16> -> tensor<2x4x10x16xbf16>
  // matmul(query, key.transpose(2, 3)) * scaling + attention_mask[..., :Lk]
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x10x16xbf16>
  %s0 = poot.matmul %q, %kt : tensor<2x4x4x16xbf16>, tensor<2x4x16x10xbf16>
  %sc = poot.constant dense<2.500000e-01> : tensor<bf16>
  %s1 = poot.mul %s0, %sc : tensor<2x4x4x10xbf16>, tensor<bf16>
  %cm = poot.slice %mask {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 1, 4, 10>, step = array<i64: 1, 1, 1, 1>} : tensor<2x1x4x10xbf16>
  %s = poot.add %s1, %cm : tensor<2x4x4x10xbf16>, tensor<2x1x4x10xbf16>
  // softmax(dim=-1, dtype=f32).to(bf16)
  %x = poot.convert %s : tensor<2x4x4x10xbf16> -> tensor<2x4x4x10xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x4x10xf32>
  %d = poot.sub %x, %mx : tensor<2x4x4x10xf32>, tensor<2x4x4x1xf32>
  %e = poot.exp %d : tensor<2x4x4x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x4x10xf32>
  %p = poot.div %e, %z : tensor<2x4x4x10xf32>, tensor<2x4x4x1xf32>
  %pb = poot.convert %p : tensor<2x4x4x10xf32> -> tensor<2x4x4x10xbf16>
  %o = poot.matmul %pb, %vr : tensor<2x4x4x10xbf16>, tensor<2x4x10x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x4x16xbf16>
  %out = poot.reshape %ot : tensor<2x4x4x16xbf16> -> tensor<2x4x64xbf16>
  return %out : tensor<2x4x64xbf16>
}
