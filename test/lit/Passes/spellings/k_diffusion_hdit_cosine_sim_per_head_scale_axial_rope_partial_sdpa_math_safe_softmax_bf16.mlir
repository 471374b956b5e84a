// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// k-diffusion k_diffusion/models/image_transformer_v2.py (HDiT),
// SelfAttentionBlock.forward on the non-flash path, bf16 autocast:
//   q, k, v = rearrange(qkv, "n h w (t nh e) -> t n nh (h w) e", t=3, e=d_head)
//   q, k = scale_for_cosine_sim(q, k, self.scale[:, None, None] * k.shape[-1]**0.5, 1e-6)
//   q = apply_rotary_emb_(q, cos, sin); k = apply_rotary_emb_(k, cos, sin)
//   x = F.scaled_dot_product_attention(q, k, v)
// scale_for_cosine_sim in f32 (promote with the f32 parameter): sum_sq =
// sum(x.to(f32)**2, -1, keepdim); scale_x = sqrt(scale) * rsqrt(sum_sq +
// eps); x * scale_x.to(bf16): each head's q and k rows cosine-normalised
// with a learned per-head temperature. AxialRoPE(d_head // 2) gives cos,
// sin of width d_head / 4; apply_rotary_emb rotates only the first ro_dim
// = 2 * 4 = 8 channels (cat((cos, cos)), rotate_half = cat(-x2, x1) of
// that part) and concatenates the rest back. SDPA on torch 2.5's math
// path: q * sqrt(1/sqrt(e)) and k^T * sqrt(1/sqrt(e)), _safe_softmax, @ v.
// n 1, 2 x 3 tokens, nh 2, e 16.
//
// Strongest form: both partial rotaries as poot.rope (half, width 8), the
// attention with n_rep 1 and scale 1/4 (SDPA's default; the cosine
// normalisation and learned scale are part of q and k), the safe-softmax
// guard proven never to fire (no mask).

// CHECK-LABEL: func.func @k_diffusion_hdit_cosine_sim_per_head_scale_axial_rope_partial_sdpa_math_safe_softmax_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 8 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25; empty-row guard never fires{{$}}
func.func @k_diffusion_hdit_cosine_sim_per_head_scale_axial_rope_partial_sdpa_math_safe_softmax_bf16(
    %qkv: tensor<1x2x3x96xbf16>, %scale_param: tensor<2xf32>,
    %cos0: tensor<6x4xbf16>, %sin0: tensor<6x4xbf16>) -> tensor<1x2x6x16xbf16> {
  // rearrange(qkv, "n h w (t nh e) -> t n nh (h w) e", t=3, e=16)
  %r6 = poot.reshape %qkv : tensor<1x2x3x96xbf16> -> tensor<1x2x3x3x2x16xbf16>
  %r6t = poot.transpose %r6 {perm = array<i64: 3, 0, 4, 1, 2, 5>} : tensor<1x2x3x3x2x16xbf16>
  %r5 = poot.reshape %r6t : tensor<3x1x2x2x3x16xbf16> -> tensor<3x1x2x6x16xbf16>
  %q5 = poot.slice %r5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x6x16xbf16>
  %k5 = poot.slice %r5 {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x6x16xbf16>
  %v5 = poot.slice %r5 {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x6x16xbf16>
  %q = poot.reshape %q5 : tensor<1x1x2x6x16xbf16> -> tensor<1x2x6x16xbf16>
  %k = poot.reshape %k5 : tensor<1x1x2x6x16xbf16> -> tensor<1x2x6x16xbf16>
  %v = poot.reshape %v5 : tensor<1x1x2x6x16xbf16> -> tensor<1x2x6x16xbf16>
  // scale = self.scale[:, None, None] * k.shape[-1] ** 0.5
  %sp = poot.reshape %scale_param : tensor<2xf32> -> tensor<2x1x1xf32>
  %four = poot.constant dense<4.0> : tensor<f32>
  %scl = poot.mul %sp, %four : tensor<2x1x1xf32>, tensor<f32>
  // scale_for_cosine_sim(q, k, scale, 1e-6)
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %qf = poot.convert %q : tensor<1x2x6x16xbf16> -> tensor<1x2x6x16xf32>
  %qsq = poot.mul %qf, %qf : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
  %sumq = poot.reduce_sum %qsq {axis = 3 : i64, keepdim} : tensor<1x2x6x16xf32>
  %kf = poot.convert %k : tensor<1x2x6x16xbf16> -> tensor<1x2x6x16xf32>
  %ksq = poot.mul %kf, %kf : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
  %sumk = poot.reduce_sum %ksq {axis = 3 : i64, keepdim} : tensor<1x2x6x16xf32>
  %sqs = poot.sqrt %scl : tensor<2x1x1xf32>
  %qe = poot.add %sumq, %eps : tensor<1x2x6x1xf32>, tensor<f32>
  %qr = poot.rsqrt %qe : tensor<1x2x6x1xf32>
  %scq = poot.mul %sqs, %qr : tensor<2x1x1xf32>, tensor<1x2x6x1xf32>
  %ke = poot.add %sumk, %eps : tensor<1x2x6x1xf32>, tensor<f32>
  %kr = poot.rsqrt %ke : tensor<1x2x6x1xf32>
  %sck = poot.mul %sqs, %kr : tensor<2x1x1xf32>, tensor<1x2x6x1xf32>
  %scqb = poot.convert %scq : tensor<1x2x6x1xf32> -> tensor<1x2x6x1xbf16>
  %sckb = poot.convert %sck : tensor<1x2x6x1xf32> -> tensor<1x2x6x1xbf16>
  %qn = poot.mul %q, %scqb : tensor<1x2x6x16xbf16>, tensor<1x2x6x1xbf16>
  %kn = poot.mul %k, %sckb : tensor<1x2x6x16xbf16>, tensor<1x2x6x1xbf16>
  // apply_rotary_emb: cos = cat((cos, cos), -1), sin likewise; ro_dim = 8
  %cos = poot.concat %cos0, %cos0 {axis = 1 : i64} : tensor<6x4xbf16>, tensor<6x4xbf16>
  %sin = poot.concat %sin0, %sin0 {axis = 1 : i64} : tensor<6x4xbf16>, tensor<6x4xbf16>
  // q: cat([x[..., :8] * cos + rotate_half(x[..., :8]) * sin, x[..., 8:]], -1)
  %qro = poot.slice %qn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %qps = poot.slice %qn {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %qx1 = poot.slice %qro {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xbf16>
  %qx2 = poot.slice %qro {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xbf16>
  %qnx2 = poot.neg %qx2 : tensor<1x2x6x4xbf16>
  %qrh = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x2x6x4xbf16>, tensor<1x2x6x4xbf16>
  %qa = poot.mul %qro, %cos : tensor<1x2x6x8xbf16>, tensor<6x8xbf16>
  %qb = poot.mul %qrh, %sin : tensor<1x2x6x8xbf16>, tensor<6x8xbf16>
  %qrot = poot.add %qa, %qb : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  %qrope = poot.concat %qrot, %qps {axis = 3 : i64} : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  // k likewise
  %kro = poot.slice %kn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %kps = poot.slice %kn {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x16xbf16>
  %kx1 = poot.slice %kro {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xbf16>
  %kx2 = poot.slice %kro {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xbf16>
  %knx2 = poot.neg %kx2 : tensor<1x2x6x4xbf16>
  %krh = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<1x2x6x4xbf16>, tensor<1x2x6x4xbf16>
  %ka = poot.mul %kro, %cos : tensor<1x2x6x8xbf16>, tensor<6x8xbf16>
  %kb = poot.mul %krh, %sin : tensor<1x2x6x8xbf16>, tensor<6x8xbf16>
  %krot = poot.add %ka, %kb : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  %krope = poot.concat %krot, %kps {axis = 3 : i64} : tensor<1x2x6x8xbf16>, tensor<1x2x6x8xbf16>
  // SDPA math: q * sqrt(scale) @ (k^T * sqrt(scale)), scale = 1/sqrt(16)
  %sf = poot.constant dense<5.000000e-01> : tensor<bf16>
  %qs = poot.mul %qrope, %sf : tensor<1x2x6x16xbf16>, tensor<bf16>
  %kt = poot.transpose %krope {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xbf16>
  %kts = poot.mul %kt, %sf : tensor<1x2x16x6xbf16>, tensor<bf16>
  %x = poot.matmul %qs, %kts : tensor<1x2x6x16xbf16>, tensor<1x2x16x6xbf16>
  // _safe_softmax(x, -1): where(all(x == -inf, -1), 0, softmax(x))
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x6x6xbf16>
  %d = poot.sub %x, %mx : tensor<1x2x6x6xbf16>, tensor<1x2x6x1xbf16>
  %e = poot.exp %d : tensor<1x2x6x6xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xbf16>
  %p = poot.div %e, %z : tensor<1x2x6x6xbf16>, tensor<1x2x6x1xbf16>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %isninf = poot.compare eq, %x, %ninf : tensor<1x2x6x6xbf16>, tensor<bf16>
  %isf = poot.convert %isninf : tensor<1x2x6x6xi1> -> tensor<1x2x6x6xbf16>
  %all = poot.reduce_min %isf {axis = 3 : i64, keepdim} : tensor<1x2x6x6xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %rows = poot.compare eq, %all, %one : tensor<1x2x6x1xbf16>, tensor<bf16>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %ps = poot.select %rows, %zero, %p : tensor<1x2x6x1xi1>, tensor<bf16>, tensor<1x2x6x6xbf16>
  %o = poot.matmul %ps, %v : tensor<1x2x6x6xbf16>, tensor<1x2x6x16xbf16>
  return %o : tensor<1x2x6x16xbf16>
}
