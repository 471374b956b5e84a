// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers OLMo 2 (models/olmo2/modeling_olmo2.py, Olmo2Attention
// .forward with eager_attention_forward) on a 5-token prefill, bf16: the
// q/k norms run over all heads at once, before the view: q = q_norm(q_proj(h))
// with Olmo2RMSNorm(num_heads * head_dim) (to(f32), pow(2).mean(-1),
// x * rsqrt(var + 1e-6), (weight * x).to(bf16): the weight is applied in
// f32, before the cast), k likewise with k_norm(num_kv_heads * head_dim);
// then view(B, L, -1, D).transpose(1, 2); apply_rotary_pos_emb (cos, sin
// [B, L, D] unsqueezed at 1, rotate_half); the masking_utils eager causal
// mask; repeat_kv; matmul * scaling + mask; softmax(dtype=f32).to(bf16);
// @ v; transpose(1, 2). GQA 4/2, D = 16.

// CHECK-LABEL: func.func @hf_olmo2_full_width_qk_norm_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal{{$}}
func.func @hf_olmo2_full_width_qk_norm_gqa_bf16(
    %xq: tensor<1x5x64xbf16>, %xk: tensor<1x5x32xbf16>, %xv: tensor<1x5x32xbf16>,
    %qw: tensor<64xbf16>, %kw: tensor<32xbf16>,
    %cos0: tensor<1x5x16xbf16>, %sin0: tensor<1x5x16xbf16>) -> tensor<1x5x4x16xbf16> {
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  // q_norm: Olmo2RMSNorm(64)
  %qn64 = poot.constant dense<64.0> : tensor<f32>
  %qf = poot.convert %xq : tensor<1x5x64xbf16> -> tensor<1x5x64xf32>
  %qsq = poot.mul %qf, %qf : tensor<1x5x64xf32>, tensor<1x5x64xf32>
  %qss = poot.reduce_sum %qsq {axis = 2 : i64, keepdim} : tensor<1x5x64xf32>
  %qvar = poot.div %qss, %qn64 : tensor<1x5x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<1x5x1xf32>, tensor<f32>
  %qr = poot.rsqrt %qve : tensor<1x5x1xf32>
  %qxn = poot.mul %qf, %qr : tensor<1x5x64xf32>, tensor<1x5x1xf32>
  %qwf = poot.convert %qw : tensor<64xbf16> -> tensor<64xf32>
  %qy = poot.mul %qwf, %qxn : tensor<64xf32>, tensor<1x5x64xf32>
  %qb = poot.convert %qy : tensor<1x5x64xf32> -> tensor<1x5x64xbf16>
  // k_norm: Olmo2RMSNorm(32)
  %kn32 = poot.constant dense<32.0> : tensor<f32>
  %kf = poot.convert %xk : tensor<1x5x32xbf16> -> tensor<1x5x32xf32>
  %ksq = poot.mul %kf, %kf : tensor<1x5x32xf32>, tensor<1x5x32xf32>
  %kss = poot.reduce_sum %ksq {axis = 2 : i64, keepdim} : tensor<1x5x32xf32>
  %kvar = poot.div %kss, %kn32 : tensor<1x5x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<1x5x1xf32>, tensor<f32>
  %kr = poot.rsqrt %kve : tensor<1x5x1xf32>
  %kxn = poot.mul %kf, %kr : tensor<1x5x32xf32>, tensor<1x5x1xf32>
  %kwf = poot.convert %kw : tensor<32xbf16> -> tensor<32xf32>
  %ky = poot.mul %kwf, %kxn : tensor<32xf32>, tensor<1x5x32xf32>
  %kb = poot.convert %ky : tensor<1x5x32xf32> -> tensor<1x5x32xbf16>
  %q4 = poot.reshape %qb : tensor<1x5x64xbf16> -> tensor<1x5x4x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x16xbf16>
  %k4 = poot.reshape %kb : tensor<1x5x32xbf16> -> tensor<1x5x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  %v4 = poot.reshape %xv : tensor<1x5x32xbf16> -> tensor<1x5x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  %cos = poot.reshape %cos0 : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %sin = poot.reshape %sin0 : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xbf16>
  %qn2 = poot.neg %q2 : tensor<1x4x5x8xbf16>
  %qrh = poot.concat %qn2, %q1 {axis = 3 : i64} : tensor<1x4x5x8xbf16>, tensor<1x4x5x8xbf16>
  %qa = poot.mul %q, %cos : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qbb = poot.mul %qrh, %sin : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qe = poot.add %qa, %qbb : tensor<1x4x5x16xbf16>, tensor<1x4x5x16xbf16>
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xbf16>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xbf16>
  %kn2 = poot.neg %k2 : tensor<1x2x5x8xbf16>
  %krh = poot.concat %kn2, %k1 {axis = 3 : i64} : tensor<1x2x5x8xbf16>, tensor<1x2x5x8xbf16>
  %ka = poot.mul %k, %cos : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %kbb = poot.mul %krh, %sin : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %ke = poot.add %ka, %kbb : tensor<1x2x5x16xbf16>, tensor<1x2x5x16xbf16>
  %qi = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi64>
  %kvi = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi64>
  %vis = poot.compare le, %kvi, %qi : tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %vis, %zero, %min : tensor<1x1x5x5xi1>, tensor<bf16>, tensor<bf16>
  %kx = poot.reshape %ke : tensor<1x2x5x16xbf16> -> tensor<1x2x1x5x16xbf16>
  %kxb = poot.broadcast %kx {shape = array<i64: 1, 2, 2, 5, 16>} : tensor<1x2x1x5x16xbf16>
  %krep = poot.reshape %kxb : tensor<1x2x2x5x16xbf16> -> tensor<1x4x5x16xbf16>
  %vx = poot.reshape %v : tensor<1x2x5x16xbf16> -> tensor<1x2x1x5x16xbf16>
  %vxb = poot.broadcast %vx {shape = array<i64: 1, 2, 2, 5, 16>} : tensor<1x2x1x5x16xbf16>
  %vrep = poot.reshape %vxb : tensor<1x2x2x5x16xbf16> -> tensor<1x4x5x16xbf16>
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x16xbf16>
  %s0 = poot.matmul %qe, %kt : tensor<1x4x5x16xbf16>, tensor<1x4x16x5xbf16>
  %sc = poot.constant dense<0.25> : tensor<bf16>
  %s = poot.mul %s0, %sc : tensor<1x4x5x5xbf16>, tensor<bf16>
  %sm = poot.add %s, %mask : tensor<1x4x5x5xbf16>, tensor<1x1x5x5xbf16>
  %x = poot.convert %sm : tensor<1x4x5x5xbf16> -> tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %zs : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %pb = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xbf16>
  %o = poot.matmul %pb, %vrep : tensor<1x4x5x5xbf16>, tensor<1x4x5x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x16xbf16>
  return %ot : tensor<1x5x4x16xbf16>
}
