// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Black Forest Labs FLUX.1 (src/flux/modules/layers.py, DoubleStreamBlock
// .forward with EmbedND, and src/flux/math.py, rope / apply_rope /
// attention), bf16: the txt and img streams each get their own qkv
// (rearrange "B L (K H D) -> K B H L D") and QKNorm (RMSNorm: x.float(),
// rsqrt(mean(x**2, -1) + 1e-6), (x * rrms).to(bf16) * scale; then .to(v));
// q = cat((txt_q, img_q), dim=2), k and v likewise (joint tokens, text
// first); pe = EmbedND(ids): per position axis rope(pos, dim, theta) =
// einsum("...n,d->...nd", pos, 1 / theta**(arange(0, dim, 2) / dim)),
// stack([cos, -sin, sin, cos], -1) rearranged to [..., d, 2, 2] rotation
// matrices, cat over the axes (axes_dim 4, 6, 6) on dim -3, unsqueeze(1);
// apply_rope: x.float().reshape(..., -1, 1, 2), out = pe[..., 0] * x[..., 0]
// + pe[..., 1] * x[..., 1] (a 2 x 2 matrix times each channel pair),
// reshape back, type_as(x); F.scaled_dot_product_attention(q, k, v) as its
// reference computes it (q @ k^T * scale_factor, + a zero attn_bias,
// softmax(dim=-1), @ v); rearrange "B H L D -> B L (H D)" and the split
// attn[:, :txt_len], attn[:, txt_len:]. B = 1, 3 text + 4 image tokens,
// 2 heads of 16, ids an f32 [B, L, 3] input.

// Not the strongest form yet; the strongest, from the source, was:
//   poot.rope x2 {rotary_dim = 16 : i64, style = "interleaved"} on q and k,
//   then poot.attention {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
//   : tensor<1x2x7x16xbf16> (x3)
// Today (sound, checked against the oracle):
// the attention fuses, but both rotations stay primitive. apply_rope writes
// each channel pair as a column of the 2 x 2 matrix times one x lane spread
// over the pair (pe[..., 0] * x[..., 0] + pe[..., 1] * x[..., 1]); the
// rotation matcher takes the table as x and declines: the output is not
// laid out like it.
// CHECK-LABEL: func.func @flux_double_stream_joint_rope_2x2_matrix_bf16
// CHECK-NOT: poot.{{rope|exp}}
// CHECK: poot.attention {{.+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x2x7x16xbf16>, tensor<1x2x7x16xbf16>, tensor<1x2x7x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @flux_double_stream_joint_rope_2x2_matrix_bf16(
    %img_qkv: tensor<1x4x96xbf16>, %txt_qkv: tensor<1x3x96xbf16>,
    %img_qs: tensor<16xbf16>, %img_ks: tensor<16xbf16>,
    %txt_qs: tensor<16xbf16>, %txt_ks: tensor<16xbf16>,
    %ids: tensor<1x7x3xf32>) -> (tensor<1x3x32xbf16>, tensor<1x4x32xbf16>) {
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %d16 = poot.constant dense<16.0> : tensor<f32>
  // rope(ids[..., 0], 4, 10000)
  %id0s = poot.slice %ids {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 7, 1>, step = array<i64: 1, 1, 1>} : tensor<1x7x3xf32>
  %om0 = poot.constant dense<[1.000000000e+00, 9.999999776e-03]> : tensor<2xf32>
  %out0 = poot.mul %id0s, %om0 : tensor<1x7x1xf32>, tensor<2xf32>
  %c0 = poot.cos %out0 : tensor<1x7x2xf32>
  %s0 = poot.sin %out0 : tensor<1x7x2xf32>
  %ns0 = poot.neg %s0 : tensor<1x7x2xf32>
  %c0r = poot.reshape %c0 : tensor<1x7x2xf32> -> tensor<1x7x2x1xf32>
  %s0r = poot.reshape %s0 : tensor<1x7x2xf32> -> tensor<1x7x2x1xf32>
  %ns0r = poot.reshape %ns0 : tensor<1x7x2xf32> -> tensor<1x7x2x1xf32>
  %st0 = poot.concat %c0r, %ns0r, %s0r, %c0r {axis = 3 : i64} : tensor<1x7x2x1xf32>, tensor<1x7x2x1xf32>, tensor<1x7x2x1xf32>, tensor<1x7x2x1xf32>
  %pe0 = poot.reshape %st0 : tensor<1x7x2x4xf32> -> tensor<1x7x2x2x2xf32>
  // rope(ids[..., 1], 6, 10000)
  %id1s = poot.slice %ids {start = array<i64: 0, 0, 1>, limit = array<i64: 1, 7, 2>, step = array<i64: 1, 1, 1>} : tensor<1x7x3xf32>
  %om1 = poot.constant dense<[1.000000000e+00, 4.641588405e-02, 2.154434333e-03]> : tensor<3xf32>
  %out1 = poot.mul %id1s, %om1 : tensor<1x7x1xf32>, tensor<3xf32>
  %c1 = poot.cos %out1 : tensor<1x7x3xf32>
  %s1 = poot.sin %out1 : tensor<1x7x3xf32>
  %ns1 = poot.neg %s1 : tensor<1x7x3xf32>
  %c1r = poot.reshape %c1 : tensor<1x7x3xf32> -> tensor<1x7x3x1xf32>
  %s1r = poot.reshape %s1 : tensor<1x7x3xf32> -> tensor<1x7x3x1xf32>
  %ns1r = poot.reshape %ns1 : tensor<1x7x3xf32> -> tensor<1x7x3x1xf32>
  %st1 = poot.concat %c1r, %ns1r, %s1r, %c1r {axis = 3 : i64} : tensor<1x7x3x1xf32>, tensor<1x7x3x1xf32>, tensor<1x7x3x1xf32>, tensor<1x7x3x1xf32>
  %pe1 = poot.reshape %st1 : tensor<1x7x3x4xf32> -> tensor<1x7x3x2x2xf32>
  // rope(ids[..., 2], 6, 10000)
  %id2s = poot.slice %ids {start = array<i64: 0, 0, 2>, limit = array<i64: 1, 7, 3>, step = array<i64: 1, 1, 1>} : tensor<1x7x3xf32>
  %om2 = poot.constant dense<[1.000000000e+00, 4.641588405e-02, 2.154434333e-03]> : tensor<3xf32>
  %out2 = poot.mul %id2s, %om2 : tensor<1x7x1xf32>, tensor<3xf32>
  %c2 = poot.cos %out2 : tensor<1x7x3xf32>
  %s2 = poot.sin %out2 : tensor<1x7x3xf32>
  %ns2 = poot.neg %s2 : tensor<1x7x3xf32>
  %c2r = poot.reshape %c2 : tensor<1x7x3xf32> -> tensor<1x7x3x1xf32>
  %s2r = poot.reshape %s2 : tensor<1x7x3xf32> -> tensor<1x7x3x1xf32>
  %ns2r = poot.reshape %ns2 : tensor<1x7x3xf32> -> tensor<1x7x3x1xf32>
  %st2 = poot.concat %c2r, %ns2r, %s2r, %c2r {axis = 3 : i64} : tensor<1x7x3x1xf32>, tensor<1x7x3x1xf32>, tensor<1x7x3x1xf32>, tensor<1x7x3x1xf32>
  %pe2 = poot.reshape %st2 : tensor<1x7x3x4xf32> -> tensor<1x7x3x2x2xf32>
  // EmbedND: cat(..., dim=-3).unsqueeze(1)
  %pecat = poot.concat %pe0, %pe1, %pe2 {axis = 2 : i64} : tensor<1x7x2x2x2xf32>, tensor<1x7x3x2x2xf32>, tensor<1x7x3x2x2xf32>
  %pe = poot.reshape %pecat : tensor<1x7x8x2x2xf32> -> tensor<1x1x7x8x2x2xf32>
  // rearrange(qkv, "B L (K H D) -> K B H L D", K=3, H=2)
  %img5 = poot.reshape %img_qkv : tensor<1x4x96xbf16> -> tensor<1x4x3x2x16xbf16>
  %imgt = poot.transpose %img5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<1x4x3x2x16xbf16>
  %imgqs = poot.slice %imgt {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x4x16xbf16>
  %imgq0 = poot.reshape %imgqs : tensor<1x1x2x4x16xbf16> -> tensor<1x2x4x16xbf16>
  %imgks = poot.slice %imgt {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x4x16xbf16>
  %imgk0 = poot.reshape %imgks : tensor<1x1x2x4x16xbf16> -> tensor<1x2x4x16xbf16>
  %imgvs = poot.slice %imgt {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x4x16xbf16>
  %imgv0 = poot.reshape %imgvs : tensor<1x1x2x4x16xbf16> -> tensor<1x2x4x16xbf16>
  // img_attn.norm(img_q, img_k, img_v): QKNorm
  %imgqf = poot.convert %imgq0 : tensor<1x2x4x16xbf16> -> tensor<1x2x4x16xf32>
  %imgqsq = poot.mul %imgqf, %imgqf : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %imgqss = poot.reduce_sum %imgqsq {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %imgqms = poot.div %imgqss, %d16 : tensor<1x2x4x1xf32>, tensor<f32>
  %imgqme = poot.add %imgqms, %eps : tensor<1x2x4x1xf32>, tensor<f32>
  %imgqrr = poot.rsqrt %imgqme : tensor<1x2x4x1xf32>
  %imgqxn = poot.mul %imgqf, %imgqrr : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %imgqxb = poot.convert %imgqxn : tensor<1x2x4x16xf32> -> tensor<1x2x4x16xbf16>
  %imgq = poot.mul %imgqxb, %img_qs : tensor<1x2x4x16xbf16>, tensor<16xbf16>
  %imgkf = poot.convert %imgk0 : tensor<1x2x4x16xbf16> -> tensor<1x2x4x16xf32>
  %imgksq = poot.mul %imgkf, %imgkf : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %imgkss = poot.reduce_sum %imgksq {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %imgkms = poot.div %imgkss, %d16 : tensor<1x2x4x1xf32>, tensor<f32>
  %imgkme = poot.add %imgkms, %eps : tensor<1x2x4x1xf32>, tensor<f32>
  %imgkrr = poot.rsqrt %imgkme : tensor<1x2x4x1xf32>
  %imgkxn = poot.mul %imgkf, %imgkrr : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %imgkxb = poot.convert %imgkxn : tensor<1x2x4x16xf32> -> tensor<1x2x4x16xbf16>
  %imgk = poot.mul %imgkxb, %img_ks : tensor<1x2x4x16xbf16>, tensor<16xbf16>
  // rearrange(qkv, "B L (K H D) -> K B H L D", K=3, H=2)
  %txt5 = poot.reshape %txt_qkv : tensor<1x3x96xbf16> -> tensor<1x3x3x2x16xbf16>
  %txtt = poot.transpose %txt5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<1x3x3x2x16xbf16>
  %txtqs = poot.slice %txtt {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 3, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x3x16xbf16>
  %txtq0 = poot.reshape %txtqs : tensor<1x1x2x3x16xbf16> -> tensor<1x2x3x16xbf16>
  %txtks = poot.slice %txtt {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 1, 2, 3, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x3x16xbf16>
  %txtk0 = poot.reshape %txtks : tensor<1x1x2x3x16xbf16> -> tensor<1x2x3x16xbf16>
  %txtvs = poot.slice %txtt {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 1, 2, 3, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x3x16xbf16>
  %txtv0 = poot.reshape %txtvs : tensor<1x1x2x3x16xbf16> -> tensor<1x2x3x16xbf16>
  // txt_attn.norm(txt_q, txt_k, txt_v): QKNorm
  %txtqf = poot.convert %txtq0 : tensor<1x2x3x16xbf16> -> tensor<1x2x3x16xf32>
  %txtqsq = poot.mul %txtqf, %txtqf : tensor<1x2x3x16xf32>, tensor<1x2x3x16xf32>
  %txtqss = poot.reduce_sum %txtqsq {axis = 3 : i64, keepdim} : tensor<1x2x3x16xf32>
  %txtqms = poot.div %txtqss, %d16 : tensor<1x2x3x1xf32>, tensor<f32>
  %txtqme = poot.add %txtqms, %eps : tensor<1x2x3x1xf32>, tensor<f32>
  %txtqrr = poot.rsqrt %txtqme : tensor<1x2x3x1xf32>
  %txtqxn = poot.mul %txtqf, %txtqrr : tensor<1x2x3x16xf32>, tensor<1x2x3x1xf32>
  %txtqxb = poot.convert %txtqxn : tensor<1x2x3x16xf32> -> tensor<1x2x3x16xbf16>
  %txtq = poot.mul %txtqxb, %txt_qs : tensor<1x2x3x16xbf16>, tensor<16xbf16>
  %txtkf = poot.convert %txtk0 : tensor<1x2x3x16xbf16> -> tensor<1x2x3x16xf32>
  %txtksq = poot.mul %txtkf, %txtkf : tensor<1x2x3x16xf32>, tensor<1x2x3x16xf32>
  %txtkss = poot.reduce_sum %txtksq {axis = 3 : i64, keepdim} : tensor<1x2x3x16xf32>
  %txtkms = poot.div %txtkss, %d16 : tensor<1x2x3x1xf32>, tensor<f32>
  %txtkme = poot.add %txtkms, %eps : tensor<1x2x3x1xf32>, tensor<f32>
  %txtkrr = poot.rsqrt %txtkme : tensor<1x2x3x1xf32>
  %txtkxn = poot.mul %txtkf, %txtkrr : tensor<1x2x3x16xf32>, tensor<1x2x3x1xf32>
  %txtkxb = poot.convert %txtkxn : tensor<1x2x3x16xf32> -> tensor<1x2x3x16xbf16>
  %txtk = poot.mul %txtkxb, %txt_ks : tensor<1x2x3x16xbf16>, tensor<16xbf16>
  // q = torch.cat((txt_q, img_q), dim=2), k and v likewise
  %q = poot.concat %txtq, %imgq {axis = 2 : i64} : tensor<1x2x3x16xbf16>, tensor<1x2x4x16xbf16>
  %k = poot.concat %txtk, %imgk {axis = 2 : i64} : tensor<1x2x3x16xbf16>, tensor<1x2x4x16xbf16>
  %v = poot.concat %txtv0, %imgv0 {axis = 2 : i64} : tensor<1x2x3x16xbf16>, tensor<1x2x4x16xbf16>
  // apply_rope(q, k, pe): freqs_cis[..., 0] and freqs_cis[..., 1]
  %pe0s = poot.slice %pe {start = array<i64: 0, 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 7, 8, 2, 1>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<1x1x7x8x2x2xf32>
  %pe1s = poot.slice %pe {start = array<i64: 0, 0, 0, 0, 0, 1>, limit = array<i64: 1, 1, 7, 8, 2, 2>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<1x1x7x8x2x2xf32>
  %pec0 = poot.reshape %pe0s : tensor<1x1x7x8x2x1xf32> -> tensor<1x1x7x8x2xf32>
  %pec1 = poot.reshape %pe1s : tensor<1x1x7x8x2x1xf32> -> tensor<1x1x7x8x2xf32>
  %qf = poot.convert %q : tensor<1x2x7x16xbf16> -> tensor<1x2x7x16xf32>
  %q_ = poot.reshape %qf : tensor<1x2x7x16xf32> -> tensor<1x2x7x8x1x2xf32>
  %qx0s = poot.slice %q_ {start = array<i64: 0, 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 7, 8, 1, 1>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<1x2x7x8x1x2xf32>
  %qx1s = poot.slice %q_ {start = array<i64: 0, 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 7, 8, 1, 2>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<1x2x7x8x1x2xf32>
  %qx0 = poot.reshape %qx0s : tensor<1x2x7x8x1x1xf32> -> tensor<1x2x7x8x1xf32>
  %qx1 = poot.reshape %qx1s : tensor<1x2x7x8x1x1xf32> -> tensor<1x2x7x8x1xf32>
  %qa = poot.mul %pec0, %qx0 : tensor<1x1x7x8x2xf32>, tensor<1x2x7x8x1xf32>
  %qb = poot.mul %pec1, %qx1 : tensor<1x1x7x8x2xf32>, tensor<1x2x7x8x1xf32>
  %qo = poot.add %qa, %qb : tensor<1x2x7x8x2xf32>, tensor<1x2x7x8x2xf32>
  %qof = poot.reshape %qo : tensor<1x2x7x8x2xf32> -> tensor<1x2x7x16xf32>
  %qr = poot.convert %qof : tensor<1x2x7x16xf32> -> tensor<1x2x7x16xbf16>
  %kf = poot.convert %k : tensor<1x2x7x16xbf16> -> tensor<1x2x7x16xf32>
  %k_ = poot.reshape %kf : tensor<1x2x7x16xf32> -> tensor<1x2x7x8x1x2xf32>
  %kx0s = poot.slice %k_ {start = array<i64: 0, 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 7, 8, 1, 1>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<1x2x7x8x1x2xf32>
  %kx1s = poot.slice %k_ {start = array<i64: 0, 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 7, 8, 1, 2>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<1x2x7x8x1x2xf32>
  %kx0 = poot.reshape %kx0s : tensor<1x2x7x8x1x1xf32> -> tensor<1x2x7x8x1xf32>
  %kx1 = poot.reshape %kx1s : tensor<1x2x7x8x1x1xf32> -> tensor<1x2x7x8x1xf32>
  %ka = poot.mul %pec0, %kx0 : tensor<1x1x7x8x2xf32>, tensor<1x2x7x8x1xf32>
  %kb = poot.mul %pec1, %kx1 : tensor<1x1x7x8x2xf32>, tensor<1x2x7x8x1xf32>
  %ko = poot.add %ka, %kb : tensor<1x2x7x8x2xf32>, tensor<1x2x7x8x2xf32>
  %kof = poot.reshape %ko : tensor<1x2x7x8x2xf32> -> tensor<1x2x7x16xf32>
  %kr = poot.convert %kof : tensor<1x2x7x16xf32> -> tensor<1x2x7x16xbf16>
  // scaled_dot_product_attention(q, k, v)
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x16xbf16>
  %w0 = poot.matmul %qr, %kt : tensor<1x2x7x16xbf16>, tensor<1x2x16x7xbf16>
  %sf = poot.constant dense<2.500000e-01> : tensor<bf16>
  %w1 = poot.mul %w0, %sf : tensor<1x2x7x7xbf16>, tensor<bf16>
  %bias = poot.constant dense<0.0> : tensor<7x7xbf16>
  %w = poot.add %w1, %bias : tensor<1x2x7x7xbf16>, tensor<7x7xbf16>
  %mx = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<1x2x7x7xbf16>
  %d = poot.sub %w, %mx : tensor<1x2x7x7xbf16>, tensor<1x2x7x1xbf16>
  %e = poot.exp %d : tensor<1x2x7x7xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x7x7xbf16>
  %p = poot.div %e, %z : tensor<1x2x7x7xbf16>, tensor<1x2x7x1xbf16>
  %o = poot.matmul %p, %v : tensor<1x2x7x7xbf16>, tensor<1x2x7x16xbf16>
  // rearrange(x, "B H L D -> B L (H D)"), then attn[:, :3], attn[:, 3:]
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x7x16xbf16>
  %att = poot.reshape %ot : tensor<1x7x2x16xbf16> -> tensor<1x7x32xbf16>
  %txt_attn = poot.slice %att {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 3, 32>, step = array<i64: 1, 1, 1>} : tensor<1x7x32xbf16>
  %img_attn = poot.slice %att {start = array<i64: 0, 3, 0>, limit = array<i64: 1, 7, 32>, step = array<i64: 1, 1, 1>} : tensor<1x7x32xbf16>
  return %txt_attn, %img_attn : tensor<1x3x32xbf16>, tensor<1x4x32xbf16>
}
