// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Hugging Face diffusers HunyuanDiT, the text cross-attention of a block
// (models/transformers/hunyuan_transformer_2d.py, HunyuanDiTBlock.forward
// calling self.attn2(norm2(h), encoder_hidden_states=...,
// image_rotary_emb=...); models/attention_processor.py,
// HunyuanAttnProcessor2_0.__call__), f16, as exported to ONNX (torch.onnx,
// opset 14) for TensorRT. HunyuanDiT2DModel.forward has no attention mask
// for the text: padded text tokens are replaced, not hidden,
// torch.where(text_embedding_mask.unsqueeze(2).bool(), encoder_hidden_states,
// self.text_embedding_padding) with a learned [text_len, C] table (the mask
// here the concatenated CLIP + T5 masks, int64). The processor: to_q on the
// image tokens, to_k / to_v on the text, bias on all; view(B, -1, heads,
// head_dim).transpose(1, 2); qk_norm="layer_norm": nn.LayerNorm(head_dim,
// eps=1e-6) with weight and bias on every head (in f32, back to f16);
// image_rotary_emb given, so query = apply_rotary_emb(query, (cos, sin))
// (models/embeddings.py, use_real=True, use_real_unbind_dim=-1: x_real,
// x_imag = x.reshape(*x.shape[:-1], -1, 2).unbind(-1); x_rotated =
// stack([-x_imag, x_real], -1).flatten(3); (x.float() * cos +
// x_rotated.float() * sin).to(x.dtype), [S, D] f32 tables of the 2-d
// grid), but `if not attn.is_cross_attention` keeps the text keys
// unrotated; F.scaled_dot_product_attention(query, key, value) with no mask,
// exported by symbolic_opset14: scale = 1 / Sqrt(Cast(head_dim)) in the
// graph, Sqrt(scale) times q and times Transpose(k) apart, MatMul,
// Softmax(axis=-1), MatMul, all in f16; transpose(1, 2).reshape(B, -1, C);
// to_out[0]; / rescale_output_factor (1.0). B = 1, 6 image tokens, 5 text
// tokens of 48 channels, 2 heads of 32.
//
// Strongest form: one rotary on the query only (interleaved pairs over all
// 32 channels), none on the keys; plain attention over the 5 text tokens:
// no mask (the text mask selects values before the projections, it hides
// no key), n_rep 1, scale the square of the f16 Sqrt(1 / Sqrt(32)),
// 0.42041015625^2 = 0.17674...

// CHECK-LABEL: func.func @diffusers_hunyuandit_cross_attn_rope_query_only_text_padding_embedding_onnx_sdpa_f16
// CHECK: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "interleaved"}
// CHECK-NOT: poot.rope
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.1767{{[0-9]*}}{{$}}
func.func @diffusers_hunyuandit_cross_attn_rope_query_only_text_padding_embedding_onnx_sdpa_f16(
    %hs: tensor<1x6x64xf16>, %ehs: tensor<1x5x48xf16>,
    %text_embedding_mask: tensor<1x5xi64> {poot.range = array<i64: 0, 2>},
    %text_embedding_padding: tensor<5x48xf16>,
    %wq: tensor<64x64xf16>, %bq: tensor<64xf16>, %wk: tensor<64x48xf16>, %bk: tensor<64xf16>,
    %wv: tensor<64x48xf16>, %bv: tensor<64xf16>,
    %nqw: tensor<32xf16>, %nqb: tensor<32xf16>, %nkw: tensor<32xf16>, %nkb: tensor<32xf16>,
    %cos: tensor<6x32xf32>, %sin: tensor<6x32xf32>,
    %wo: tensor<64x64xf16>, %bo: tensor<64xf16>) -> tensor<1x6x64xf16> {
  // HunyuanDiT2DModel.forward: text_embedding_mask.unsqueeze(2).bool(); torch.where(mask, ehs, padding)
  %tm3 = poot.reshape %text_embedding_mask : tensor<1x5xi64> -> tensor<1x5x1xi64>
  %tmb = poot.convert %tm3 : tensor<1x5x1xi64> -> tensor<1x5x1xi1>
  %enc = poot.select %tmb, %ehs, %text_embedding_padding : tensor<1x5x1xi1>, tensor<1x5x48xf16>, tensor<5x48xf16>
  // query = attn.to_q(hidden_states); key = attn.to_k(ehs); value = attn.to_v(ehs)
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<64x64xf16>
  %q0 = poot.matmul %hs, %wqt : tensor<1x6x64xf16>, tensor<64x64xf16>
  %q1 = poot.add %q0, %bq : tensor<1x6x64xf16>, tensor<64xf16>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<64x48xf16>
  %k0 = poot.matmul %enc, %wkt : tensor<1x5x48xf16>, tensor<48x64xf16>
  %k1 = poot.add %k0, %bk : tensor<1x5x64xf16>, tensor<64xf16>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<64x48xf16>
  %v0 = poot.matmul %enc, %wvt : tensor<1x5x48xf16>, tensor<48x64xf16>
  %v1 = poot.add %v0, %bv : tensor<1x5x64xf16>, tensor<64xf16>
  // .view(batch_size, -1, attn.heads, head_dim).transpose(1, 2)
  %q4 = poot.reshape %q1 : tensor<1x6x64xf16> -> tensor<1x6x2x32xf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x32xf16>
  %k4 = poot.reshape %k1 : tensor<1x5x64xf16> -> tensor<1x5x2x32xf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x32xf16>
  %v4 = poot.reshape %v1 : tensor<1x5x64xf16> -> tensor<1x5x2x32xf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x32xf16>
  // attn.norm_q(query): LayerNorm(head_dim, eps=1e-6), in f32
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %d32 = poot.constant dense<32.0> : tensor<f32>
  %qf = poot.convert %q : tensor<1x2x6x32xf16> -> tensor<1x2x6x32xf32>
  %qsum = poot.reduce_sum %qf {axis = 3 : i64, keepdim} : tensor<1x2x6x32xf32>
  %qmean = poot.div %qsum, %d32 : tensor<1x2x6x1xf32>, tensor<f32>
  %qc = poot.sub %qf, %qmean : tensor<1x2x6x32xf32>, tensor<1x2x6x1xf32>
  %qsq = poot.mul %qc, %qc : tensor<1x2x6x32xf32>, tensor<1x2x6x32xf32>
  %qvs = poot.reduce_sum %qsq {axis = 3 : i64, keepdim} : tensor<1x2x6x32xf32>
  %qvar = poot.div %qvs, %d32 : tensor<1x2x6x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<1x2x6x1xf32>, tensor<f32>
  %qrs = poot.rsqrt %qve : tensor<1x2x6x1xf32>
  %qn = poot.mul %qc, %qrs : tensor<1x2x6x32xf32>, tensor<1x2x6x1xf32>
  %nqwf = poot.convert %nqw : tensor<32xf16> -> tensor<32xf32>
  %nqbf = poot.convert %nqb : tensor<32xf16> -> tensor<32xf32>
  %qg = poot.mul %qn, %nqwf : tensor<1x2x6x32xf32>, tensor<32xf32>
  %qb = poot.add %qg, %nqbf : tensor<1x2x6x32xf32>, tensor<32xf32>
  %qln = poot.convert %qb : tensor<1x2x6x32xf32> -> tensor<1x2x6x32xf16>
  // attn.norm_k(key)
  %kf = poot.convert %k : tensor<1x2x5x32xf16> -> tensor<1x2x5x32xf32>
  %ksum = poot.reduce_sum %kf {axis = 3 : i64, keepdim} : tensor<1x2x5x32xf32>
  %kmean = poot.div %ksum, %d32 : tensor<1x2x5x1xf32>, tensor<f32>
  %kc = poot.sub %kf, %kmean : tensor<1x2x5x32xf32>, tensor<1x2x5x1xf32>
  %ksq = poot.mul %kc, %kc : tensor<1x2x5x32xf32>, tensor<1x2x5x32xf32>
  %kvs = poot.reduce_sum %ksq {axis = 3 : i64, keepdim} : tensor<1x2x5x32xf32>
  %kvar = poot.div %kvs, %d32 : tensor<1x2x5x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<1x2x5x1xf32>, tensor<f32>
  %krs = poot.rsqrt %kve : tensor<1x2x5x1xf32>
  %kn = poot.mul %kc, %krs : tensor<1x2x5x32xf32>, tensor<1x2x5x1xf32>
  %nkwf = poot.convert %nkw : tensor<32xf16> -> tensor<32xf32>
  %nkbf = poot.convert %nkb : tensor<32xf16> -> tensor<32xf32>
  %kg = poot.mul %kn, %nkwf : tensor<1x2x5x32xf32>, tensor<32xf32>
  %kb = poot.add %kg, %nkbf : tensor<1x2x5x32xf32>, tensor<32xf32>
  %kln = poot.convert %kb : tensor<1x2x5x32xf32> -> tensor<1x2x5x32xf16>
  // query = apply_rotary_emb(query, image_rotary_emb): cos[None, None], sin[None, None]
  %c4 = poot.reshape %cos : tensor<6x32xf32> -> tensor<1x1x6x32xf32>
  %s4 = poot.reshape %sin : tensor<6x32xf32> -> tensor<1x1x6x32xf32>
  // x_real, x_imag = x.reshape(*x.shape[:-1], -1, 2).unbind(-1)
  %q5 = poot.reshape %qln : tensor<1x2x6x32xf16> -> tensor<1x2x6x16x2xf16>
  %qre5 = poot.slice %q5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 16, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x6x16x2xf16>
  %qim5 = poot.slice %q5 {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 6, 16, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x6x16x2xf16>
  %qre = poot.reshape %qre5 : tensor<1x2x6x16x1xf16> -> tensor<1x2x6x16xf16>
  %qim = poot.reshape %qim5 : tensor<1x2x6x16x1xf16> -> tensor<1x2x6x16xf16>
  // x_rotated = torch.stack([-x_imag, x_real], dim=-1).flatten(3)
  %qnim = poot.neg %qim : tensor<1x2x6x16xf16>
  %qnim5 = poot.reshape %qnim : tensor<1x2x6x16xf16> -> tensor<1x2x6x16x1xf16>
  %qre5b = poot.reshape %qre : tensor<1x2x6x16xf16> -> tensor<1x2x6x16x1xf16>
  %qst = poot.concat %qnim5, %qre5b {axis = 4 : i64} : tensor<1x2x6x16x1xf16>, tensor<1x2x6x16x1xf16>
  %qrot = poot.reshape %qst : tensor<1x2x6x16x2xf16> -> tensor<1x2x6x32xf16>
  // out = (x.float() * cos + x_rotated.float() * sin).to(x.dtype)
  %qlf = poot.convert %qln : tensor<1x2x6x32xf16> -> tensor<1x2x6x32xf32>
  %qrf = poot.convert %qrot : tensor<1x2x6x32xf16> -> tensor<1x2x6x32xf32>
  %qa = poot.mul %qlf, %c4 : tensor<1x2x6x32xf32>, tensor<1x1x6x32xf32>
  %qbb = poot.mul %qrf, %s4 : tensor<1x2x6x32xf32>, tensor<1x1x6x32xf32>
  %qro = poot.add %qa, %qbb : tensor<1x2x6x32xf32>, tensor<1x2x6x32xf32>
  %qr = poot.convert %qro : tensor<1x2x6x32xf32> -> tensor<1x2x6x32xf16>
  // F.scaled_dot_product_attention(query, key, value), symbolic_opset14
  %dh = poot.constant dense<32.0> : tensor<f16>
  %sdh = poot.sqrt %dh : tensor<f16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %scale = poot.div %one, %sdh : tensor<f16>, tensor<f16>
  %ss = poot.sqrt %scale : tensor<f16>
  %kt = poot.transpose %kln {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x32xf16>
  %qs = poot.mul %qr, %ss : tensor<1x2x6x32xf16>, tensor<f16>
  %kts = poot.mul %kt, %ss : tensor<1x2x32x5xf16>, tensor<f16>
  %s = poot.matmul %qs, %kts : tensor<1x2x6x32xf16>, tensor<1x2x32x5xf16>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x6x5xf16>
  %d = poot.sub %s, %m : tensor<1x2x6x5xf16>, tensor<1x2x6x1xf16>
  %e = poot.exp %d : tensor<1x2x6x5xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x5xf16>
  %p = poot.div %e, %z : tensor<1x2x6x5xf16>, tensor<1x2x6x1xf16>
  %o = poot.matmul %p, %v : tensor<1x2x6x5xf16>, tensor<1x2x5x32xf16>
  // hidden_states.transpose(1, 2).reshape(batch_size, -1, attn.heads * head_dim)
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x32xf16>
  %o3 = poot.reshape %ot : tensor<1x6x2x32xf16> -> tensor<1x6x64xf16>
  // attn.to_out[0]; / attn.rescale_output_factor
  %wot = poot.transpose %wo {perm = array<i64: 1, 0>} : tensor<64x64xf16>
  %y0 = poot.matmul %o3, %wot : tensor<1x6x64xf16>, tensor<64x64xf16>
  %y1 = poot.add %y0, %bo : tensor<1x6x64xf16>, tensor<64xf16>
  %rof = poot.constant dense<1.0> : tensor<f16>
  %y = poot.div %y1, %rof : tensor<1x6x64xf16>, tensor<f16>
  return %y : tensor<1x6x64xf16>
}
