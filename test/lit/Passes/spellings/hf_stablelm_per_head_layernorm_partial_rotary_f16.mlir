// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers StableLM (models/stablelm/modeling_stablelm.py,
// StableLmAttention.forward, eager) with qk_layernorm and
// partial_rotary_factor = 0.25, f16: q, k, v viewed [B, L, H, D] and
// transposed; StableLmLayerNormPerHead splits the heads (torch.split(.., 1,
// dim=1)), runs a separate nn.LayerNorm(head_dim, bias=False) on each (mean,
// biased variance, eps 1e-5, computed in f32 as aten does for f16, times
// that head's weight) and cats them back; rotary on the first rotary_ndims
// = 8 channels only (query_rot, query_pass = q[..., :8], q[..., 8:];
// apply_rotary_pos_emb with cos, sin [B, L, 8] unsqueezed at 1 and
// rotate_half), cat((rot, pass), -1); repeat_kv; matmul(q, k^T) /
// sqrt(head_dim) + attention_mask[:, :, :, :Lk] (the model's 4-D float
// mask, a graph input); softmax(dtype=f32).to(f16); @ v; transpose(1, 2),
// reshape. GQA 4/2, D = 32, L = 5.

// CHECK-LABEL: func.func @hf_stablelm_per_head_layernorm_partial_rotary_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 8 : i64, style = "half"}
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask(%{{.+}} : tensor<1x1x5x5xf16>) {n_rep = 2 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.1767{{[0-9]*}}, tensor mask{{$}}
func.func @hf_stablelm_per_head_layernorm_partial_rotary_f16(
    %xq: tensor<1x5x128xf16>, %xk: tensor<1x5x64xf16>, %xv: tensor<1x5x64xf16>,
    %qw: tensor<4x32xf16>, %kw: tensor<2x32xf16>,
    %cos0: tensor<1x5x8xf16>, %sin0: tensor<1x5x8xf16>,
    %attention_mask: tensor<1x1x5x5xf16>) -> tensor<1x5x128xf16> {
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  %n32 = poot.constant dense<32.0> : tensor<f32>
  %q4 = poot.reshape %xq : tensor<1x5x128xf16> -> tensor<1x5x4x32xf16>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x32xf16>
  %k4 = poot.reshape %xk : tensor<1x5x64xf16> -> tensor<1x5x2x32xf16>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x32xf16>
  %v4 = poot.reshape %xv : tensor<1x5x64xf16> -> tensor<1x5x2x32xf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x32xf16>
  // q_layernorm: one nn.LayerNorm per head
  %q0x = poot.slice %qh {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xf16>
  %q0f = poot.convert %q0x : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %q0s = poot.reduce_sum %q0f {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q0m = poot.div %q0s, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q0c = poot.sub %q0f, %q0m : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q0c2 = poot.mul %q0c, %q0c : tensor<1x1x5x32xf32>, tensor<1x1x5x32xf32>
  %q0vs = poot.reduce_sum %q0c2 {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q0var = poot.div %q0vs, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q0ve = poot.add %q0var, %eps : tensor<1x1x5x1xf32>, tensor<f32>
  %q0r = poot.rsqrt %q0ve : tensor<1x1x5x1xf32>
  %q0n = poot.mul %q0c, %q0r : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q0w0 = poot.slice %qw {start = array<i64: 0, 0>, limit = array<i64: 1, 32>, step = array<i64: 1, 1>} : tensor<4x32xf16>
  %q0w1 = poot.reshape %q0w0 : tensor<1x32xf16> -> tensor<32xf16>
  %q0wf = poot.convert %q0w1 : tensor<32xf16> -> tensor<32xf32>
  %q0y = poot.mul %q0n, %q0wf : tensor<1x1x5x32xf32>, tensor<32xf32>
  %q0o = poot.convert %q0y : tensor<1x1x5x32xf32> -> tensor<1x1x5x32xf16>
  %q1x = poot.slice %qh {start = array<i64: 0, 1, 0, 0>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xf16>
  %q1f = poot.convert %q1x : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %q1s = poot.reduce_sum %q1f {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q1m = poot.div %q1s, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q1c = poot.sub %q1f, %q1m : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q1c2 = poot.mul %q1c, %q1c : tensor<1x1x5x32xf32>, tensor<1x1x5x32xf32>
  %q1vs = poot.reduce_sum %q1c2 {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q1var = poot.div %q1vs, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q1ve = poot.add %q1var, %eps : tensor<1x1x5x1xf32>, tensor<f32>
  %q1r = poot.rsqrt %q1ve : tensor<1x1x5x1xf32>
  %q1n = poot.mul %q1c, %q1r : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q1w0 = poot.slice %qw {start = array<i64: 1, 0>, limit = array<i64: 2, 32>, step = array<i64: 1, 1>} : tensor<4x32xf16>
  %q1w1 = poot.reshape %q1w0 : tensor<1x32xf16> -> tensor<32xf16>
  %q1wf = poot.convert %q1w1 : tensor<32xf16> -> tensor<32xf32>
  %q1y = poot.mul %q1n, %q1wf : tensor<1x1x5x32xf32>, tensor<32xf32>
  %q1o = poot.convert %q1y : tensor<1x1x5x32xf32> -> tensor<1x1x5x32xf16>
  %q2x = poot.slice %qh {start = array<i64: 0, 2, 0, 0>, limit = array<i64: 1, 3, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xf16>
  %q2f = poot.convert %q2x : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %q2s = poot.reduce_sum %q2f {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q2m = poot.div %q2s, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q2c = poot.sub %q2f, %q2m : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q2c2 = poot.mul %q2c, %q2c : tensor<1x1x5x32xf32>, tensor<1x1x5x32xf32>
  %q2vs = poot.reduce_sum %q2c2 {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q2var = poot.div %q2vs, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q2ve = poot.add %q2var, %eps : tensor<1x1x5x1xf32>, tensor<f32>
  %q2r = poot.rsqrt %q2ve : tensor<1x1x5x1xf32>
  %q2n = poot.mul %q2c, %q2r : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q2w0 = poot.slice %qw {start = array<i64: 2, 0>, limit = array<i64: 3, 32>, step = array<i64: 1, 1>} : tensor<4x32xf16>
  %q2w1 = poot.reshape %q2w0 : tensor<1x32xf16> -> tensor<32xf16>
  %q2wf = poot.convert %q2w1 : tensor<32xf16> -> tensor<32xf32>
  %q2y = poot.mul %q2n, %q2wf : tensor<1x1x5x32xf32>, tensor<32xf32>
  %q2o = poot.convert %q2y : tensor<1x1x5x32xf32> -> tensor<1x1x5x32xf16>
  %q3x = poot.slice %qh {start = array<i64: 0, 3, 0, 0>, limit = array<i64: 1, 4, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xf16>
  %q3f = poot.convert %q3x : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %q3s = poot.reduce_sum %q3f {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q3m = poot.div %q3s, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q3c = poot.sub %q3f, %q3m : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q3c2 = poot.mul %q3c, %q3c : tensor<1x1x5x32xf32>, tensor<1x1x5x32xf32>
  %q3vs = poot.reduce_sum %q3c2 {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %q3var = poot.div %q3vs, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %q3ve = poot.add %q3var, %eps : tensor<1x1x5x1xf32>, tensor<f32>
  %q3r = poot.rsqrt %q3ve : tensor<1x1x5x1xf32>
  %q3n = poot.mul %q3c, %q3r : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %q3w0 = poot.slice %qw {start = array<i64: 3, 0>, limit = array<i64: 4, 32>, step = array<i64: 1, 1>} : tensor<4x32xf16>
  %q3w1 = poot.reshape %q3w0 : tensor<1x32xf16> -> tensor<32xf16>
  %q3wf = poot.convert %q3w1 : tensor<32xf16> -> tensor<32xf32>
  %q3y = poot.mul %q3n, %q3wf : tensor<1x1x5x32xf32>, tensor<32xf32>
  %q3o = poot.convert %q3y : tensor<1x1x5x32xf32> -> tensor<1x1x5x32xf16>
  %qn = poot.concat %q0o, %q1o, %q2o, %q3o {axis = 1 : i64} : tensor<1x1x5x32xf16>, tensor<1x1x5x32xf16>, tensor<1x1x5x32xf16>, tensor<1x1x5x32xf16>
  // k_layernorm: one nn.LayerNorm per head
  %k0x = poot.slice %kh {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x32xf16>
  %k0f = poot.convert %k0x : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %k0s = poot.reduce_sum %k0f {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %k0m = poot.div %k0s, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %k0c = poot.sub %k0f, %k0m : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %k0c2 = poot.mul %k0c, %k0c : tensor<1x1x5x32xf32>, tensor<1x1x5x32xf32>
  %k0vs = poot.reduce_sum %k0c2 {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %k0var = poot.div %k0vs, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %k0ve = poot.add %k0var, %eps : tensor<1x1x5x1xf32>, tensor<f32>
  %k0r = poot.rsqrt %k0ve : tensor<1x1x5x1xf32>
  %k0n = poot.mul %k0c, %k0r : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %k0w0 = poot.slice %kw {start = array<i64: 0, 0>, limit = array<i64: 1, 32>, step = array<i64: 1, 1>} : tensor<2x32xf16>
  %k0w1 = poot.reshape %k0w0 : tensor<1x32xf16> -> tensor<32xf16>
  %k0wf = poot.convert %k0w1 : tensor<32xf16> -> tensor<32xf32>
  %k0y = poot.mul %k0n, %k0wf : tensor<1x1x5x32xf32>, tensor<32xf32>
  %k0o = poot.convert %k0y : tensor<1x1x5x32xf32> -> tensor<1x1x5x32xf16>
  %k1x = poot.slice %kh {start = array<i64: 0, 1, 0, 0>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x32xf16>
  %k1f = poot.convert %k1x : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %k1s = poot.reduce_sum %k1f {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %k1m = poot.div %k1s, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %k1c = poot.sub %k1f, %k1m : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %k1c2 = poot.mul %k1c, %k1c : tensor<1x1x5x32xf32>, tensor<1x1x5x32xf32>
  %k1vs = poot.reduce_sum %k1c2 {axis = 3 : i64, keepdim} : tensor<1x1x5x32xf32>
  %k1var = poot.div %k1vs, %n32 : tensor<1x1x5x1xf32>, tensor<f32>
  %k1ve = poot.add %k1var, %eps : tensor<1x1x5x1xf32>, tensor<f32>
  %k1r = poot.rsqrt %k1ve : tensor<1x1x5x1xf32>
  %k1n = poot.mul %k1c, %k1r : tensor<1x1x5x32xf32>, tensor<1x1x5x1xf32>
  %k1w0 = poot.slice %kw {start = array<i64: 1, 0>, limit = array<i64: 2, 32>, step = array<i64: 1, 1>} : tensor<2x32xf16>
  %k1w1 = poot.reshape %k1w0 : tensor<1x32xf16> -> tensor<32xf16>
  %k1wf = poot.convert %k1w1 : tensor<32xf16> -> tensor<32xf32>
  %k1y = poot.mul %k1n, %k1wf : tensor<1x1x5x32xf32>, tensor<32xf32>
  %k1o = poot.convert %k1y : tensor<1x1x5x32xf32> -> tensor<1x1x5x32xf16>
  %kn = poot.concat %k0o, %k1o {axis = 1 : i64} : tensor<1x1x5x32xf16>, tensor<1x1x5x32xf16>
  // partial rotary: rotary_ndims = 8
  %cos = poot.reshape %cos0 : tensor<1x5x8xf16> -> tensor<1x1x5x8xf16>
  %sin = poot.reshape %sin0 : tensor<1x5x8xf16> -> tensor<1x1x5x8xf16>
  %qrot = poot.slice %qn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xf16>
  %qpass = poot.slice %qn {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xf16>
  %q1 = poot.slice %qrot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x8xf16>
  %q2 = poot.slice %qrot {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x8xf16>
  %qn2 = poot.neg %q2 : tensor<1x4x5x4xf16>
  %qrh = poot.concat %qn2, %q1 {axis = 3 : i64} : tensor<1x4x5x4xf16>, tensor<1x4x5x4xf16>
  %qa = poot.mul %qrot, %cos : tensor<1x4x5x8xf16>, tensor<1x1x5x8xf16>
  %qb = poot.mul %qrh, %sin : tensor<1x4x5x8xf16>, tensor<1x1x5x8xf16>
  %qe = poot.add %qa, %qb : tensor<1x4x5x8xf16>, tensor<1x4x5x8xf16>
  %qs = poot.concat %qe, %qpass {axis = 3 : i64} : tensor<1x4x5x8xf16>, tensor<1x4x5x24xf16>
  %krot = poot.slice %kn {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x32xf16>
  %kpass = poot.slice %kn {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x32xf16>
  %k1 = poot.slice %krot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x8xf16>
  %k2 = poot.slice %krot {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x8xf16>
  %kn2 = poot.neg %k2 : tensor<1x2x5x4xf16>
  %krh = poot.concat %kn2, %k1 {axis = 3 : i64} : tensor<1x2x5x4xf16>, tensor<1x2x5x4xf16>
  %ka = poot.mul %krot, %cos : tensor<1x2x5x8xf16>, tensor<1x1x5x8xf16>
  %kb = poot.mul %krh, %sin : tensor<1x2x5x8xf16>, tensor<1x1x5x8xf16>
  %ke = poot.add %ka, %kb : tensor<1x2x5x8xf16>, tensor<1x2x5x8xf16>
  %ks = poot.concat %ke, %kpass {axis = 3 : i64} : tensor<1x2x5x8xf16>, tensor<1x2x5x24xf16>
  // repeat_kv
  %kx = poot.reshape %ks : tensor<1x2x5x32xf16> -> tensor<1x2x1x5x32xf16>
  %kxb = poot.broadcast %kx {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xf16>
  %kr = poot.reshape %kxb : tensor<1x2x2x5x32xf16> -> tensor<1x4x5x32xf16>
  %vx = poot.reshape %vh : tensor<1x2x5x32xf16> -> tensor<1x2x1x5x32xf16>
  %vxb = poot.broadcast %vx {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xf16>
  %vr = poot.reshape %vxb : tensor<1x2x2x5x32xf16> -> tensor<1x4x5x32xf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x32xf16>
  %s0 = poot.matmul %qs, %kt : tensor<1x4x5x32xf16>, tensor<1x4x32x5xf16>
  %sq = poot.constant dense<5.65685415> : tensor<f16>
  %s = poot.div %s0, %sq : tensor<1x4x5x5xf16>, tensor<f16>
  %cm = poot.slice %attention_mask {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 5>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x5xf16>
  %sm = poot.add %s, %cm : tensor<1x4x5x5xf16>, tensor<1x1x5x5xf16>
  %x = poot.convert %sm : tensor<1x4x5x5xf16> -> tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %zs : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %ph = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xf16>
  %o = poot.matmul %ph, %vr : tensor<1x4x5x5xf16>, tensor<1x4x5x32xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x32xf16>
  %out = poot.reshape %ot : tensor<1x5x4x32xf16> -> tensor<1x5x128xf16>
  return %out : tensor<1x5x128xf16>
}
