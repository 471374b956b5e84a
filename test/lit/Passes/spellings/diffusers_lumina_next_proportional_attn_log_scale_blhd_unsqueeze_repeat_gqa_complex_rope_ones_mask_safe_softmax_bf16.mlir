// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Hugging Face diffusers Lumina-Next, the image self-attention of a block
// (models/attention_processor.py, LuminaAttnProcessor2_0.__call__, as
// LuminaNextDiTBlock.attn1 runs it with query_rotary_emb = key_rotary_emb =
// the image freqs_cis and base_sequence_length from the pipeline's
// proportional_attn: (default_image_size // 16) ** 2 = 4096), bf16. The
// attention_mask is the patch embedder's mask: LuminaPatchEmbed.forward
// returns torch.ones(B, S, dtype=torch.int32), a constant of the traced
// graph. to_q / to_k / to_v (no bias); qk_norm="layer_norm_across_heads":
// nn.LayerNorm(heads * head_dim) on the flat query and nn.LayerNorm(
// kv_heads * head_dim) on the flat key (eps 1e-5, in f32, back to bf16);
// view(B, -1, heads | kv_heads, head_dim) in the [B, S, H, D] layout;
// apply_rotary_emb(x, freqs_cis, use_real=False): view_as_complex(x.float()
// .reshape(..., -1, 2)) * freqs_cis.unsqueeze(2), view_as_real(...)
// .flatten(3), type_as(x) (the complex product written out in real
// arithmetic, the [1, S, D/2] complex table as its real and imaginary
// parts); softmax_scale = math.sqrt(math.log(sequence_length,
// base_sequence_length)) * attn.scale, sqrt(log_4096 16) / sqrt(32);
// GQA: key.unsqueeze(3).repeat(1, 1, 1, n_rep, 1).flatten(2, 3), value
// alike; attention_mask.bool().view(B, 1, 1, -1).expand(-1, heads, S, -1);
// transpose(1, 2); F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
// scale=softmax_scale) in torch's math form (torch >= 2.5): the bool mask
// made where(!mask, -inf, 0), q, k, v upcast to f32, q and k^T each times
// sqrt(scale) (an f32 constant), matmul, + mask, _safe_softmax, @ v, back
// to bf16; transpose(1, 2).to(dtype). B = 1, S = 16 image tokens, 4 query
// heads and 2 key heads of 32.
//
// Strongest form: two rotaries of interleaved pairs over all 32 channels;
// one attention with no mask (the all-ones mask hides nothing, so the
// guard never fires), n_rep 2, scale sqrt(1/3) / sqrt(32) as the f32
// square root squared, 0.1020620...

// CHECK-LABEL: func.func @diffusers_lumina_next_proportional_attn_log_scale_blhd_unsqueeze_repeat_gqa_complex_rope_ones_mask_safe_softmax_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 2 : i64, scale = 0.10206{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.102062; empty-row guard never fires{{$}}
func.func @diffusers_lumina_next_proportional_attn_log_scale_blhd_unsqueeze_repeat_gqa_complex_rope_ones_mask_safe_softmax_bf16(
    %hs: tensor<1x16x128xbf16>, %wq: tensor<128x128xbf16>, %wk: tensor<64x128xbf16>,
    %wv: tensor<64x128xbf16>, %nqw: tensor<128xbf16>, %nqb: tensor<128xbf16>,
    %nkw: tensor<64xbf16>, %nkb: tensor<64xbf16>,
    %freqs_re: tensor<1x16x16xf32>, %freqs_im: tensor<1x16x16xf32>) -> tensor<1x16x4x32xbf16> {
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  // LuminaPatchEmbed: mask = torch.ones(B, S, dtype=torch.int32)
  %ones = poot.constant dense<1> : tensor<1x16xi32>
  // query = attn.to_q(hidden_states); key = attn.to_k(...); value = attn.to_v(...)
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<128x128xbf16>
  %q0 = poot.matmul %hs, %wqt : tensor<1x16x128xbf16>, tensor<128x128xbf16>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<64x128xbf16>
  %k0 = poot.matmul %hs, %wkt : tensor<1x16x128xbf16>, tensor<128x64xbf16>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<64x128xbf16>
  %v0 = poot.matmul %hs, %wvt : tensor<1x16x128xbf16>, tensor<128x64xbf16>
  // attn.norm_q(query): LayerNorm(128) across the heads
  %d128 = poot.constant dense<128.0> : tensor<f32>
  %qf = poot.convert %q0 : tensor<1x16x128xbf16> -> tensor<1x16x128xf32>
  %qsum = poot.reduce_sum %qf {axis = 2 : i64, keepdim} : tensor<1x16x128xf32>
  %qmean = poot.div %qsum, %d128 : tensor<1x16x1xf32>, tensor<f32>
  %qc = poot.sub %qf, %qmean : tensor<1x16x128xf32>, tensor<1x16x1xf32>
  %qsq = poot.mul %qc, %qc : tensor<1x16x128xf32>, tensor<1x16x128xf32>
  %qvs = poot.reduce_sum %qsq {axis = 2 : i64, keepdim} : tensor<1x16x128xf32>
  %qvar = poot.div %qvs, %d128 : tensor<1x16x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<1x16x1xf32>, tensor<f32>
  %qrs = poot.rsqrt %qve : tensor<1x16x1xf32>
  %qn = poot.mul %qc, %qrs : tensor<1x16x128xf32>, tensor<1x16x1xf32>
  %nqwf = poot.convert %nqw : tensor<128xbf16> -> tensor<128xf32>
  %nqbf = poot.convert %nqb : tensor<128xbf16> -> tensor<128xf32>
  %qg = poot.mul %qn, %nqwf : tensor<1x16x128xf32>, tensor<128xf32>
  %qbb = poot.add %qg, %nqbf : tensor<1x16x128xf32>, tensor<128xf32>
  %qln = poot.convert %qbb : tensor<1x16x128xf32> -> tensor<1x16x128xbf16>
  // attn.norm_k(key): LayerNorm(64)
  %d64 = poot.constant dense<64.0> : tensor<f32>
  %kf = poot.convert %k0 : tensor<1x16x64xbf16> -> tensor<1x16x64xf32>
  %ksum = poot.reduce_sum %kf {axis = 2 : i64, keepdim} : tensor<1x16x64xf32>
  %kmean = poot.div %ksum, %d64 : tensor<1x16x1xf32>, tensor<f32>
  %kc = poot.sub %kf, %kmean : tensor<1x16x64xf32>, tensor<1x16x1xf32>
  %ksq = poot.mul %kc, %kc : tensor<1x16x64xf32>, tensor<1x16x64xf32>
  %kvs = poot.reduce_sum %ksq {axis = 2 : i64, keepdim} : tensor<1x16x64xf32>
  %kvar = poot.div %kvs, %d64 : tensor<1x16x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<1x16x1xf32>, tensor<f32>
  %krs = poot.rsqrt %kve : tensor<1x16x1xf32>
  %kn = poot.mul %kc, %krs : tensor<1x16x64xf32>, tensor<1x16x1xf32>
  %nkwf = poot.convert %nkw : tensor<64xbf16> -> tensor<64xf32>
  %nkbf = poot.convert %nkb : tensor<64xbf16> -> tensor<64xf32>
  %kg = poot.mul %kn, %nkwf : tensor<1x16x64xf32>, tensor<64xf32>
  %kbb = poot.add %kg, %nkbf : tensor<1x16x64xf32>, tensor<64xf32>
  %kln = poot.convert %kbb : tensor<1x16x64xf32> -> tensor<1x16x64xbf16>
  // query.view(batch_size, -1, attn.heads, head_dim); key / value .view(batch_size, -1, kv_heads, head_dim)
  %q4 = poot.reshape %qln : tensor<1x16x128xbf16> -> tensor<1x16x4x32xbf16>
  %k4 = poot.reshape %kln : tensor<1x16x64xbf16> -> tensor<1x16x2x32xbf16>
  %v4 = poot.reshape %v0 : tensor<1x16x64xbf16> -> tensor<1x16x2x32xbf16>
  // apply_rotary_emb(query, query_rotary_emb, use_real=False): freqs_cis.unsqueeze(2)
  %fr = poot.reshape %freqs_re : tensor<1x16x16xf32> -> tensor<1x16x1x16xf32>
  %fi = poot.reshape %freqs_im : tensor<1x16x16xf32> -> tensor<1x16x1x16xf32>
  // view_as_complex(x.float().reshape(*x.shape[:-1], -1, 2))
  %qx = poot.convert %q4 : tensor<1x16x4x32xbf16> -> tensor<1x16x4x32xf32>
  %qx5 = poot.reshape %qx : tensor<1x16x4x32xf32> -> tensor<1x16x4x16x2xf32>
  %qre5 = poot.slice %qx5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 16, 4, 16, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x16x4x16x2xf32>
  %qim5 = poot.slice %qx5 {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 16, 4, 16, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x16x4x16x2xf32>
  %qre = poot.reshape %qre5 : tensor<1x16x4x16x1xf32> -> tensor<1x16x4x16xf32>
  %qim = poot.reshape %qim5 : tensor<1x16x4x16x1xf32> -> tensor<1x16x4x16xf32>
  // x_rotated * freqs_cis: (re * fr - im * fi) + i (re * fi + im * fr)
  %qa1 = poot.mul %qre, %fr : tensor<1x16x4x16xf32>, tensor<1x16x1x16xf32>
  %qa2 = poot.mul %qim, %fi : tensor<1x16x4x16xf32>, tensor<1x16x1x16xf32>
  %qoutre = poot.sub %qa1, %qa2 : tensor<1x16x4x16xf32>, tensor<1x16x4x16xf32>
  %qb1 = poot.mul %qre, %fi : tensor<1x16x4x16xf32>, tensor<1x16x1x16xf32>
  %qb2 = poot.mul %qim, %fr : tensor<1x16x4x16xf32>, tensor<1x16x1x16xf32>
  %qoutim = poot.add %qb1, %qb2 : tensor<1x16x4x16xf32>, tensor<1x16x4x16xf32>
  // view_as_real(...).flatten(3).type_as(x)
  %qor5 = poot.reshape %qoutre : tensor<1x16x4x16xf32> -> tensor<1x16x4x16x1xf32>
  %qoi5 = poot.reshape %qoutim : tensor<1x16x4x16xf32> -> tensor<1x16x4x16x1xf32>
  %qst = poot.concat %qor5, %qoi5 {axis = 4 : i64} : tensor<1x16x4x16x1xf32>, tensor<1x16x4x16x1xf32>
  %qfl = poot.reshape %qst : tensor<1x16x4x16x2xf32> -> tensor<1x16x4x32xf32>
  %qrot = poot.convert %qfl : tensor<1x16x4x32xf32> -> tensor<1x16x4x32xbf16>
  // apply_rotary_emb(key, key_rotary_emb, use_real=False)
  %kx = poot.convert %k4 : tensor<1x16x2x32xbf16> -> tensor<1x16x2x32xf32>
  %kx5 = poot.reshape %kx : tensor<1x16x2x32xf32> -> tensor<1x16x2x16x2xf32>
  %kre5 = poot.slice %kx5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 16, 2, 16, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x16x2x16x2xf32>
  %kim5 = poot.slice %kx5 {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 16, 2, 16, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x16x2x16x2xf32>
  %kre = poot.reshape %kre5 : tensor<1x16x2x16x1xf32> -> tensor<1x16x2x16xf32>
  %kim = poot.reshape %kim5 : tensor<1x16x2x16x1xf32> -> tensor<1x16x2x16xf32>
  %ka1 = poot.mul %kre, %fr : tensor<1x16x2x16xf32>, tensor<1x16x1x16xf32>
  %ka2 = poot.mul %kim, %fi : tensor<1x16x2x16xf32>, tensor<1x16x1x16xf32>
  %koutre = poot.sub %ka1, %ka2 : tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32>
  %kb1 = poot.mul %kre, %fi : tensor<1x16x2x16xf32>, tensor<1x16x1x16xf32>
  %kb2 = poot.mul %kim, %fr : tensor<1x16x2x16xf32>, tensor<1x16x1x16xf32>
  %koutim = poot.add %kb1, %kb2 : tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32>
  %kor5 = poot.reshape %koutre : tensor<1x16x2x16xf32> -> tensor<1x16x2x16x1xf32>
  %koi5 = poot.reshape %koutim : tensor<1x16x2x16xf32> -> tensor<1x16x2x16x1xf32>
  %kst = poot.concat %kor5, %koi5 {axis = 4 : i64} : tensor<1x16x2x16x1xf32>, tensor<1x16x2x16x1xf32>
  %kfl = poot.reshape %kst : tensor<1x16x2x16x2xf32> -> tensor<1x16x2x32xf32>
  %krot = poot.convert %kfl : tensor<1x16x2x32xf32> -> tensor<1x16x2x32xbf16>
  // key.unsqueeze(3).repeat(1, 1, 1, n_rep, 1).flatten(2, 3); value alike
  %k5 = poot.reshape %krot : tensor<1x16x2x32xbf16> -> tensor<1x16x2x1x32xbf16>
  %krep = poot.broadcast %k5 {shape = array<i64: 1, 16, 2, 2, 32>} : tensor<1x16x2x1x32xbf16>
  %kfl4 = poot.reshape %krep : tensor<1x16x2x2x32xbf16> -> tensor<1x16x4x32xbf16>
  %v5 = poot.reshape %v4 : tensor<1x16x2x32xbf16> -> tensor<1x16x2x1x32xbf16>
  %vrep = poot.broadcast %v5 {shape = array<i64: 1, 16, 2, 2, 32>} : tensor<1x16x2x1x32xbf16>
  %vfl4 = poot.reshape %vrep : tensor<1x16x2x2x32xbf16> -> tensor<1x16x4x32xbf16>
  // attention_mask.bool().view(batch_size, 1, 1, -1).expand(-1, attn.heads, sequence_length, -1)
  %mb = poot.convert %ones : tensor<1x16xi32> -> tensor<1x16xi1>
  %mb4 = poot.reshape %mb : tensor<1x16xi1> -> tensor<1x1x1x16xi1>
  %mexp = poot.broadcast %mb4 {shape = array<i64: 1, 4, 16, 16>} : tensor<1x1x1x16xi1>
  // query / key / value .transpose(1, 2)
  %q = poot.transpose %qrot {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x4x32xbf16>
  %k = poot.transpose %kfl4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x4x32xbf16>
  %v = poot.transpose %vfl4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x4x32xbf16>
  // F.scaled_dot_product_attention(..., attn_mask=attention_mask, scale=softmax_scale), math form
  %nm = poot.not %mexp : tensor<1x4x16x16xi1>
  %ninfb = poot.constant dense<0xFF80> : tensor<bf16>
  %zerob = poot.constant dense<0.0> : tensor<bf16>
  %am = poot.select %nm, %ninfb, %zerob : tensor<1x4x16x16xi1>, tensor<bf16>, tensor<bf16>
  %qa32 = poot.convert %q : tensor<1x4x16x32xbf16> -> tensor<1x4x16x32xf32>
  %ka32 = poot.convert %k : tensor<1x4x16x32xbf16> -> tensor<1x4x16x32xf32>
  %va32 = poot.convert %v : tensor<1x4x16x32xbf16> -> tensor<1x4x16x32xf32>
  %sf = poot.constant dense<0.319471538> : tensor<f32>
  %qsc = poot.mul %qa32, %sf : tensor<1x4x16x32xf32>, tensor<f32>
  %kt = poot.transpose %ka32 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x32xf32>
  %kts = poot.mul %kt, %sf : tensor<1x4x32x16xf32>, tensor<f32>
  %attn = poot.matmul %qsc, %kts : tensor<1x4x16x32xf32>, tensor<1x4x32x16xf32>
  %amf = poot.convert %am : tensor<1x4x16x16xbf16> -> tensor<1x4x16x16xf32>
  %x = poot.add %attn, %amf : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  // _safe_softmax(attn, -1)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x16x16xf32>
  %d = poot.sub %x, %mx : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>
  %e = poot.exp %d : tensor<1x4x16x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x16x16xf32>
  %p = poot.div %e, %z : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x4x16x16xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x4x16x16xi1> -> tensor<1x4x16x16xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x16x16xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x4x16x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x4x16x1xi1>, tensor<f32>, tensor<1x4x16x16xf32>
  %o = poot.matmul %ps, %va32 : tensor<1x4x16x16xf32>, tensor<1x4x16x32xf32>
  %oh = poot.convert %o : tensor<1x4x16x32xf32> -> tensor<1x4x16x32xbf16>
  // hidden_states.transpose(1, 2).to(dtype)
  %y = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x16x32xbf16>
  return %y : tensor<1x16x4x32xbf16>
}
