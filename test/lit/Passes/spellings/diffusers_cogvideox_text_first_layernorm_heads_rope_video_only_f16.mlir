// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// diffusers CogVideoXAttnProcessor2_0 (models/attention_processor.py) with
// apply_rotary_emb (models/embeddings.py, use_real=True,
// use_real_unbind_dim=-1), f16: the text tokens are concatenated in front of
// the video tokens before the projections, hidden_states = cat(
// [encoder_hidden_states, hidden_states], dim=1); to_q / to_k / to_v with
// bias; view(B, -1, heads, head_dim).transpose(1, 2); qk_norm="layer_norm":
// nn.LayerNorm(head_dim, eps=1e-6) with weight and bias on every head
// (computed in f32, stored back to f16); RoPE on the video part only,
// query[:, :, text_seq_length:] = apply_rotary_emb(query[:, :, text:],
// (cos, sin)) and the same for key (the text tokens keep their values):
// x_real, x_imag = x.reshape(..., -1, 2).unbind(-1), x_rotated =
// stack([-x_imag, x_real], -1).flatten(3), (x.float() * cos +
// x_rotated.float() * sin).to(f16) with [S, D] f32 tables;
// F.scaled_dot_product_attention (no mask) as its reference computes it;
// transpose(1, 2).reshape(B, -1, C), split back into [text, video].
// B = 1, 3 text + 4 video tokens, 2 heads of 16.

// CHECK-LABEL: func.func @diffusers_cogvideox_text_first_layernorm_heads_rope_video_only_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x2x7x16xf16>, tensor<1x2x7x16xf16>, tensor<1x2x7x16xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @diffusers_cogvideox_text_first_layernorm_heads_rope_video_only_f16(
    %hs: tensor<1x4x32xf16>, %ehs: tensor<1x3x32xf16>,
    %wq: tensor<32x32xf16>, %bq: tensor<32xf16>, %wk: tensor<32x32xf16>, %bk: tensor<32xf16>,
    %wv: tensor<32x32xf16>, %bv: tensor<32xf16>,
    %nqw: tensor<16xf16>, %nqb: tensor<16xf16>, %nkw: tensor<16xf16>, %nkb: tensor<16xf16>,
    %cos0: tensor<4x16xf32>, %sin0: tensor<4x16xf32>) -> (tensor<1x4x32xf16>, tensor<1x3x32xf16>) {
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %d16 = poot.constant dense<16.0> : tensor<f32>
  // hidden_states = torch.cat([encoder_hidden_states, hidden_states], dim=1)
  %x = poot.concat %ehs, %hs {axis = 1 : i64} : tensor<1x3x32xf16>, tensor<1x4x32xf16>
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %q0 = poot.matmul %x, %wqt : tensor<1x7x32xf16>, tensor<32x32xf16>
  %q1 = poot.add %q0, %bq : tensor<1x7x32xf16>, tensor<32xf16>
  %q4 = poot.reshape %q1 : tensor<1x7x32xf16> -> tensor<1x7x2x16xf16>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x2x16xf16>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %k0 = poot.matmul %x, %wkt : tensor<1x7x32xf16>, tensor<32x32xf16>
  %k1 = poot.add %k0, %bk : tensor<1x7x32xf16>, tensor<32xf16>
  %k4 = poot.reshape %k1 : tensor<1x7x32xf16> -> tensor<1x7x2x16xf16>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x2x16xf16>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %v0 = poot.matmul %x, %wvt : tensor<1x7x32xf16>, tensor<32x32xf16>
  %v1 = poot.add %v0, %bv : tensor<1x7x32xf16>, tensor<32xf16>
  %v4 = poot.reshape %v1 : tensor<1x7x32xf16> -> tensor<1x7x2x16xf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x2x16xf16>
  // attn.norm_q: nn.LayerNorm(head_dim, eps=1e-6)
  %qf = poot.convert %qh : tensor<1x2x7x16xf16> -> tensor<1x2x7x16xf32>
  %qs = poot.reduce_sum %qf {axis = 3 : i64, keepdim} : tensor<1x2x7x16xf32>
  %qm = poot.div %qs, %d16 : tensor<1x2x7x1xf32>, tensor<f32>
  %qc = poot.sub %qf, %qm : tensor<1x2x7x16xf32>, tensor<1x2x7x1xf32>
  %qc2 = poot.mul %qc, %qc : tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32>
  %qvs = poot.reduce_sum %qc2 {axis = 3 : i64, keepdim} : tensor<1x2x7x16xf32>
  %qvar = poot.div %qvs, %d16 : tensor<1x2x7x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<1x2x7x1xf32>, tensor<f32>
  %qrs = poot.rsqrt %qve : tensor<1x2x7x1xf32>
  %qxn = poot.mul %qc, %qrs : tensor<1x2x7x16xf32>, tensor<1x2x7x1xf32>
  %qwf = poot.convert %nqw : tensor<16xf16> -> tensor<16xf32>
  %qbf = poot.convert %nqb : tensor<16xf16> -> tensor<16xf32>
  %qxw = poot.mul %qxn, %qwf : tensor<1x2x7x16xf32>, tensor<16xf32>
  %qxb = poot.add %qxw, %qbf : tensor<1x2x7x16xf32>, tensor<16xf32>
  %qn = poot.convert %qxb : tensor<1x2x7x16xf32> -> tensor<1x2x7x16xf16>
  // attn.norm_k: nn.LayerNorm(head_dim, eps=1e-6)
  %kf = poot.convert %kh : tensor<1x2x7x16xf16> -> tensor<1x2x7x16xf32>
  %ks = poot.reduce_sum %kf {axis = 3 : i64, keepdim} : tensor<1x2x7x16xf32>
  %km = poot.div %ks, %d16 : tensor<1x2x7x1xf32>, tensor<f32>
  %kc = poot.sub %kf, %km : tensor<1x2x7x16xf32>, tensor<1x2x7x1xf32>
  %kc2 = poot.mul %kc, %kc : tensor<1x2x7x16xf32>, tensor<1x2x7x16xf32>
  %kvs = poot.reduce_sum %kc2 {axis = 3 : i64, keepdim} : tensor<1x2x7x16xf32>
  %kvar = poot.div %kvs, %d16 : tensor<1x2x7x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<1x2x7x1xf32>, tensor<f32>
  %krs = poot.rsqrt %kve : tensor<1x2x7x1xf32>
  %kxn = poot.mul %kc, %krs : tensor<1x2x7x16xf32>, tensor<1x2x7x1xf32>
  %kwf = poot.convert %nkw : tensor<16xf16> -> tensor<16xf32>
  %kbf = poot.convert %nkb : tensor<16xf16> -> tensor<16xf32>
  %kxw = poot.mul %kxn, %kwf : tensor<1x2x7x16xf32>, tensor<16xf32>
  %kxb = poot.add %kxw, %kbf : tensor<1x2x7x16xf32>, tensor<16xf32>
  %kn = poot.convert %kxb : tensor<1x2x7x16xf32> -> tensor<1x2x7x16xf16>
  // image_rotary_emb: cos[None, None], sin[None, None]
  %cos = poot.reshape %cos0 : tensor<4x16xf32> -> tensor<1x1x4x16xf32>
  %sin = poot.reshape %sin0 : tensor<4x16xf32> -> tensor<1x1x4x16xf32>
  // q[:, :, text_seq_length:] = apply_rotary_emb(q[:, :, text_seq_length:], image_rotary_emb)
  %qtxt = poot.slice %qn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x7x16xf16>
  %qvid = poot.slice %qn {start = array<i64: 0, 0, 3, 0>, limit = array<i64: 1, 2, 7, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x7x16xf16>
  %qp = poot.reshape %qvid : tensor<1x2x4x16xf16> -> tensor<1x2x4x8x2xf16>
  %qre5 = poot.slice %qp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x8x2xf16>
  %qim5 = poot.slice %qp {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x8x2xf16>
  %qnim5 = poot.neg %qim5 : tensor<1x2x4x8x1xf16>
  %qst = poot.concat %qnim5, %qre5 {axis = 4 : i64} : tensor<1x2x4x8x1xf16>, tensor<1x2x4x8x1xf16>
  %qrot = poot.reshape %qst : tensor<1x2x4x8x2xf16> -> tensor<1x2x4x16xf16>
  %qvf = poot.convert %qvid : tensor<1x2x4x16xf16> -> tensor<1x2x4x16xf32>
  %qrf = poot.convert %qrot : tensor<1x2x4x16xf16> -> tensor<1x2x4x16xf32>
  %qa = poot.mul %qvf, %cos : tensor<1x2x4x16xf32>, tensor<1x1x4x16xf32>
  %qb = poot.mul %qrf, %sin : tensor<1x2x4x16xf32>, tensor<1x1x4x16xf32>
  %qe = poot.add %qa, %qb : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %qeh = poot.convert %qe : tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf16>
  %qr = poot.concat %qtxt, %qeh {axis = 2 : i64} : tensor<1x2x3x16xf16>, tensor<1x2x4x16xf16>
  // k[:, :, text_seq_length:] = apply_rotary_emb(k[:, :, text_seq_length:], image_rotary_emb)
  %ktxt = poot.slice %kn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x7x16xf16>
  %kvid = poot.slice %kn {start = array<i64: 0, 0, 3, 0>, limit = array<i64: 1, 2, 7, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x7x16xf16>
  %kp = poot.reshape %kvid : tensor<1x2x4x16xf16> -> tensor<1x2x4x8x2xf16>
  %kre5 = poot.slice %kp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x8x2xf16>
  %kim5 = poot.slice %kp {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x8x2xf16>
  %knim5 = poot.neg %kim5 : tensor<1x2x4x8x1xf16>
  %kst = poot.concat %knim5, %kre5 {axis = 4 : i64} : tensor<1x2x4x8x1xf16>, tensor<1x2x4x8x1xf16>
  %krot = poot.reshape %kst : tensor<1x2x4x8x2xf16> -> tensor<1x2x4x16xf16>
  %kvf = poot.convert %kvid : tensor<1x2x4x16xf16> -> tensor<1x2x4x16xf32>
  %krf = poot.convert %krot : tensor<1x2x4x16xf16> -> tensor<1x2x4x16xf32>
  %ka = poot.mul %kvf, %cos : tensor<1x2x4x16xf32>, tensor<1x1x4x16xf32>
  %kb = poot.mul %krf, %sin : tensor<1x2x4x16xf32>, tensor<1x1x4x16xf32>
  %ke = poot.add %ka, %kb : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %keh = poot.convert %ke : tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf16>
  %kr = poot.concat %ktxt, %keh {axis = 2 : i64} : tensor<1x2x3x16xf16>, tensor<1x2x4x16xf16>
  // F.scaled_dot_product_attention(query, key, value)
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x16xf16>
  %s0 = poot.matmul %qr, %kt : tensor<1x2x7x16xf16>, tensor<1x2x16x7xf16>
  %sf = poot.constant dense<2.500000e-01> : tensor<f16>
  %s = poot.mul %s0, %sf : tensor<1x2x7x7xf16>, tensor<f16>
  %mx = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x7x7xf16>
  %d = poot.sub %s, %mx : tensor<1x2x7x7xf16>, tensor<1x2x7x1xf16>
  %e = poot.exp %d : tensor<1x2x7x7xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x7x7xf16>
  %p = poot.div %e, %z : tensor<1x2x7x7xf16>, tensor<1x2x7x1xf16>
  %o = poot.matmul %p, %vh : tensor<1x2x7x7xf16>, tensor<1x2x7x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x7x16xf16>
  %out = poot.reshape %ot : tensor<1x7x2x16xf16> -> tensor<1x7x32xf16>
  // encoder_hidden_states, hidden_states = hidden_states.split([3, 4], dim=1)
  %oe = poot.slice %out {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 3, 32>, step = array<i64: 1, 1, 1>} : tensor<1x7x32xf16>
  %oh = poot.slice %out {start = array<i64: 0, 3, 0>, limit = array<i64: 1, 7, 32>, step = array<i64: 1, 1, 1>} : tensor<1x7x32xf16>
  return %oh, %oe : tensor<1x4x32xf16>, tensor<1x3x32xf16>
}
