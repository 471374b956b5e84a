// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Persimmon (models/persimmon/modeling_persimmon.py,
// PersimmonAttention.forward with eager_attention_forward), f16, a prefill
// without attention_mask or cache: _split_heads views the fused
// query_key_value output (B, L, H, 3, D), q, k, v = fused[..., 0, :],
// [..., 1, :], [..., 2, :] (q, k and v interleaved per head); qk_layernorm:
// nn.LayerNorm(head_dim, eps=1e-5) with weight and bias on (B, L, H, D),
// before the transpose (mean, biased variance and the affine in f32, as
// aten's layer_norm does for f16, back to f16); transpose(1, 2); partial
// rotary, rotary_ndims = int(D * 0.5): q[..., :8] rotated (rotate_half,
// cos / sin (B, L, 8) unsqueezed at 1), cat((rot, pass), -1). The mask is
// PersimmonModel._prepare_4d_causal_attention_mask_with_cache_position with
// target_length = past_seen_tokens + L + 1 (no 2-D mask given): full((L,
// L + 1), finfo(f16).min).triu(1) *= arange(L + 1) > cache_position
// .reshape(-1, 1), cache_position = arange(0, L), [None, None].expand(B, 1,
// -1, -1); eager slices it [:, :, :, :Lk]; matmul(q, k^T) * D^-0.5 + mask;
// softmax(dim=-1, dtype=f32).to(f16); @ v; transpose(1, 2), reshape.
// B = 2, L = 5, H = 4, D = 16.

// CHECK-LABEL: func.func @hf_persimmon_per_head_qkv_layernorm_bias_partial_rotary_mask_plus_one_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 8 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @hf_persimmon_per_head_qkv_layernorm_bias_partial_rotary_mask_plus_one_f16(
    %fused: tensor<2x5x192xf16>, %qw: tensor<16xf16>, %qb: tensor<16xf16>,
    %kw: tensor<16xf16>, %kb: tensor<16xf16>,
    %cos0: tensor<2x5x8xf16>, %sin0: tensor<2x5x8xf16>) -> tensor<2x5x64xf16> {
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  %n16 = poot.constant dense<16.0> : tensor<f32>
  // _split_heads
  %f5 = poot.reshape %fused : tensor<2x5x192xf16> -> tensor<2x5x4x3x16xf16>
  %q5 = poot.slice %f5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 2, 5, 4, 1, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x5x4x3x16xf16>
  %k5 = poot.slice %f5 {start = array<i64: 0, 0, 0, 1, 0>, limit = array<i64: 2, 5, 4, 2, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x5x4x3x16xf16>
  %v5 = poot.slice %f5 {start = array<i64: 0, 0, 0, 2, 0>, limit = array<i64: 2, 5, 4, 3, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x5x4x3x16xf16>
  %qs = poot.reshape %q5 : tensor<2x5x4x1x16xf16> -> tensor<2x5x4x16xf16>
  %ks = poot.reshape %k5 : tensor<2x5x4x1x16xf16> -> tensor<2x5x4x16xf16>
  %vs = poot.reshape %v5 : tensor<2x5x4x1x16xf16> -> tensor<2x5x4x16xf16>
  // q_layernorm, k_layernorm
  %qf = poot.convert %qs : tensor<2x5x4x16xf16> -> tensor<2x5x4x16xf32>
  %qsum = poot.reduce_sum %qf {axis = 3 : i64, keepdim} : tensor<2x5x4x16xf32>
  %qmean = poot.div %qsum, %n16 : tensor<2x5x4x1xf32>, tensor<f32>
  %qc = poot.sub %qf, %qmean : tensor<2x5x4x16xf32>, tensor<2x5x4x1xf32>
  %qc2 = poot.mul %qc, %qc : tensor<2x5x4x16xf32>, tensor<2x5x4x16xf32>
  %qvs = poot.reduce_sum %qc2 {axis = 3 : i64, keepdim} : tensor<2x5x4x16xf32>
  %qvar = poot.div %qvs, %n16 : tensor<2x5x4x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<2x5x4x1xf32>, tensor<f32>
  %qr = poot.rsqrt %qve : tensor<2x5x4x1xf32>
  %qn = poot.mul %qc, %qr : tensor<2x5x4x16xf32>, tensor<2x5x4x1xf32>
  %qwf = poot.convert %qw : tensor<16xf16> -> tensor<16xf32>
  %qbf = poot.convert %qb : tensor<16xf16> -> tensor<16xf32>
  %qy = poot.mul %qn, %qwf : tensor<2x5x4x16xf32>, tensor<16xf32>
  %qyb = poot.add %qy, %qbf : tensor<2x5x4x16xf32>, tensor<16xf32>
  %qln = poot.convert %qyb : tensor<2x5x4x16xf32> -> tensor<2x5x4x16xf16>
  %kf = poot.convert %ks : tensor<2x5x4x16xf16> -> tensor<2x5x4x16xf32>
  %ksum = poot.reduce_sum %kf {axis = 3 : i64, keepdim} : tensor<2x5x4x16xf32>
  %kmean = poot.div %ksum, %n16 : tensor<2x5x4x1xf32>, tensor<f32>
  %kc = poot.sub %kf, %kmean : tensor<2x5x4x16xf32>, tensor<2x5x4x1xf32>
  %kc2 = poot.mul %kc, %kc : tensor<2x5x4x16xf32>, tensor<2x5x4x16xf32>
  %kvs = poot.reduce_sum %kc2 {axis = 3 : i64, keepdim} : tensor<2x5x4x16xf32>
  %kvar = poot.div %kvs, %n16 : tensor<2x5x4x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<2x5x4x1xf32>, tensor<f32>
  %kr = poot.rsqrt %kve : tensor<2x5x4x1xf32>
  %kn = poot.mul %kc, %kr : tensor<2x5x4x16xf32>, tensor<2x5x4x1xf32>
  %kwf = poot.convert %kw : tensor<16xf16> -> tensor<16xf32>
  %kbf = poot.convert %kb : tensor<16xf16> -> tensor<16xf32>
  %ky = poot.mul %kn, %kwf : tensor<2x5x4x16xf32>, tensor<16xf32>
  %kyb = poot.add %ky, %kbf : tensor<2x5x4x16xf32>, tensor<16xf32>
  %kln = poot.convert %kyb : tensor<2x5x4x16xf32> -> tensor<2x5x4x16xf16>
  %qh = poot.transpose %qln {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf16>
  %kh = poot.transpose %kln {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf16>
  %vh = poot.transpose %vs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf16>
  // partial rotary
  %cos = poot.reshape %cos0 : tensor<2x5x8xf16> -> tensor<2x1x5x8xf16>
  %sin = poot.reshape %sin0 : tensor<2x5x8xf16> -> tensor<2x1x5x8xf16>
  %qrot = poot.slice %qh {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x16xf16>
  %qpass = poot.slice %qh {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x16xf16>
  %qx1 = poot.slice %qrot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x8xf16>
  %qx2 = poot.slice %qrot {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 2, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x8xf16>
  %qn2 = poot.neg %qx2 : tensor<2x4x5x4xf16>
  %qrh = poot.concat %qn2, %qx1 {axis = 3 : i64} : tensor<2x4x5x4xf16>, tensor<2x4x5x4xf16>
  %qa = poot.mul %qrot, %cos : tensor<2x4x5x8xf16>, tensor<2x1x5x8xf16>
  %qb2 = poot.mul %qrh, %sin : tensor<2x4x5x8xf16>, tensor<2x1x5x8xf16>
  %qe = poot.add %qa, %qb2 : tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16>
  %qcat = poot.concat %qe, %qpass {axis = 3 : i64} : tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16>
  %krot = poot.slice %kh {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x16xf16>
  %kpass = poot.slice %kh {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x16xf16>
  %kx1 = poot.slice %krot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x8xf16>
  %kx2 = poot.slice %krot {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 2, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x5x8xf16>
  %kn2 = poot.neg %kx2 : tensor<2x4x5x4xf16>
  %krh = poot.concat %kn2, %kx1 {axis = 3 : i64} : tensor<2x4x5x4xf16>, tensor<2x4x5x4xf16>
  %ka = poot.mul %krot, %cos : tensor<2x4x5x8xf16>, tensor<2x1x5x8xf16>
  %kb2 = poot.mul %krh, %sin : tensor<2x4x5x8xf16>, tensor<2x1x5x8xf16>
  %ke = poot.add %ka, %kb2 : tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16>
  %kcat = poot.concat %ke, %kpass {axis = 3 : i64} : tensor<2x4x5x8xf16>, tensor<2x4x5x8xf16>
  // _prepare_4d_causal_attention_mask_with_cache_position, target_length = L + 1
  %row = poot.iota {dim = 0 : i64} : tensor<5x6xi64>
  %col = poot.iota {dim = 1 : i64} : tensor<5x6xi64>
  %dcr = poot.sub %col, %row : tensor<5x6xi64>, tensor<5x6xi64>
  %one_i = poot.constant dense<1> : tensor<i64>
  %up = poot.compare ge, %dcr, %one_i : tensor<5x6xi64>, tensor<i64>
  %min = poot.constant dense<-6.550400e+04> : tensor<f16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %triu = poot.select %up, %min, %zero : tensor<5x6xi1>, tensor<f16>, tensor<f16>
  %ar = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %cp2 = poot.reshape %cp : tensor<5xi64> -> tensor<5x1xi64>
  %gt = poot.compare gt, %ar, %cp2 : tensor<6xi64>, tensor<5x1xi64>
  %gtf = poot.convert %gt : tensor<5x6xi1> -> tensor<5x6xf16>
  %cm = poot.mul %triu, %gtf : tensor<5x6xf16>, tensor<5x6xf16>
  %cm4 = poot.reshape %cm : tensor<5x6xf16> -> tensor<1x1x5x6xf16>
  %cmb = poot.broadcast %cm4 {shape = array<i64: 2, 1, 5, 6>} : tensor<1x1x5x6xf16>
  // eager_attention_forward
  %mask = poot.slice %cmb {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 1, 5, 5>, step = array<i64: 1, 1, 1, 1>} : tensor<2x1x5x6xf16>
  %kt = poot.transpose %kcat {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x16xf16>
  %s0 = poot.matmul %qcat, %kt : tensor<2x4x5x16xf16>, tensor<2x4x16x5xf16>
  %sc = poot.constant dense<0.25> : tensor<f16>
  %s = poot.mul %s0, %sc : tensor<2x4x5x5xf16>, tensor<f16>
  %sm = poot.add %s, %mask : tensor<2x4x5x5xf16>, tensor<2x1x5x5xf16>
  %x = poot.convert %sm : tensor<2x4x5x5xf16> -> tensor<2x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %e = poot.exp %d : tensor<2x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %p = poot.div %e, %z : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %ph = poot.convert %p : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xf16>
  %o = poot.matmul %ph, %vh : tensor<2x4x5x5xf16>, tensor<2x4x5x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x5x16xf16>
  %out = poot.reshape %ot : tensor<2x5x4x16xf16> -> tensor<2x5x64xf16>
  return %out : tensor<2x5x64xf16>
}
