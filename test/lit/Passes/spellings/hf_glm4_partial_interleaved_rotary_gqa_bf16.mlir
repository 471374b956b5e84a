// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers GLM-4 (models/glm4/modeling_glm4.py, Glm4Attention
// .forward with eager_attention_forward) on a 5-token prefill, bf16,
// partial_rotary_factor = 0.5: apply_rotary_pos_emb unsqueezes cos, sin
// [B, L, 16] at 1, takes cos[..., :8].repeat_interleave(2, dim=-1) (each
// frequency for both channels of a pair), rotary_dim = 16, q_rot, q_pass =
// q[..., :16], q[..., 16:], q_rot * cos + rotate_half(q_rot) * sin with the
// interleaved rotate_half (stack((-x[..., 1::2], x[..., 0::2]), -1)
// .flatten(-2)), cat([q_embed, q_pass], -1); the masking_utils eager causal
// mask where(kv_idx <= q_idx, 0, finfo(bf16).min) over cache_position =
// arange(L); repeat_kv; matmul(q, k^T) * scaling + mask; softmax(dim=-1,
// dtype=f32).to(bf16); @ v; transpose(1, 2). GQA 4/2, D = 32.

// CHECK-LABEL: func.func @hf_glm4_partial_interleaved_rotary_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 2 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.1767{{[0-9]*}}, causal{{$}}
func.func @hf_glm4_partial_interleaved_rotary_gqa_bf16(
    %q: tensor<1x4x5x32xbf16>, %k: tensor<1x2x5x32xbf16>, %v: tensor<1x2x5x32xbf16>,
    %cos0: tensor<1x5x16xbf16>, %sin0: tensor<1x5x16xbf16>) -> tensor<1x5x4x32xbf16> {
  // cos = cos.unsqueeze(1)[..., :8].repeat_interleave(2, dim=-1)
  %cu = poot.reshape %cos0 : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %su = poot.reshape %sin0 : tensor<1x5x16xbf16> -> tensor<1x1x5x16xbf16>
  %ch = poot.slice %cu {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x16xbf16>
  %sh = poot.slice %su {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x5x16xbf16>
  %c5 = poot.reshape %ch : tensor<1x1x5x8xbf16> -> tensor<1x1x5x8x1xbf16>
  %cb = poot.broadcast %c5 {shape = array<i64: 1, 1, 5, 8, 2>} : tensor<1x1x5x8x1xbf16>
  %cos = poot.reshape %cb : tensor<1x1x5x8x2xbf16> -> tensor<1x1x5x16xbf16>
  %s5 = poot.reshape %sh : tensor<1x1x5x8xbf16> -> tensor<1x1x5x8x1xbf16>
  %sb = poot.broadcast %s5 {shape = array<i64: 1, 1, 5, 8, 2>} : tensor<1x1x5x8x1xbf16>
  %sin = poot.reshape %sb : tensor<1x1x5x8x2xbf16> -> tensor<1x1x5x16xbf16>
  %qrot = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xbf16>
  %qpass = poot.slice %q {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 4, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x32xbf16>
  %qx1 = poot.slice %qrot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x5x16xbf16>
  %qx2 = poot.slice %qrot {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x5x16xbf16>
  %qnx2 = poot.neg %qx2 : tensor<1x4x5x8xbf16>
  %qs1 = poot.reshape %qnx2 : tensor<1x4x5x8xbf16> -> tensor<1x4x5x8x1xbf16>
  %qs2 = poot.reshape %qx1 : tensor<1x4x5x8xbf16> -> tensor<1x4x5x8x1xbf16>
  %qst = poot.concat %qs1, %qs2 {axis = 4 : i64} : tensor<1x4x5x8x1xbf16>, tensor<1x4x5x8x1xbf16>
  %qrh = poot.reshape %qst : tensor<1x4x5x8x2xbf16> -> tensor<1x4x5x16xbf16>
  %qa = poot.mul %qrot, %cos : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qb = poot.mul %qrh, %sin : tensor<1x4x5x16xbf16>, tensor<1x1x5x16xbf16>
  %qe = poot.add %qa, %qb : tensor<1x4x5x16xbf16>, tensor<1x4x5x16xbf16>
  %qr = poot.concat %qe, %qpass {axis = 3 : i64} : tensor<1x4x5x16xbf16>, tensor<1x4x5x16xbf16>
  %krot = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x32xbf16>
  %kpass = poot.slice %k {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x32xbf16>
  %kx1 = poot.slice %krot {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x16xbf16>
  %kx2 = poot.slice %krot {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x16xbf16>
  %knx2 = poot.neg %kx2 : tensor<1x2x5x8xbf16>
  %ks1 = poot.reshape %knx2 : tensor<1x2x5x8xbf16> -> tensor<1x2x5x8x1xbf16>
  %ks2 = poot.reshape %kx1 : tensor<1x2x5x8xbf16> -> tensor<1x2x5x8x1xbf16>
  %kst = poot.concat %ks1, %ks2 {axis = 4 : i64} : tensor<1x2x5x8x1xbf16>, tensor<1x2x5x8x1xbf16>
  %krh = poot.reshape %kst : tensor<1x2x5x8x2xbf16> -> tensor<1x2x5x16xbf16>
  %ka = poot.mul %krot, %cos : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %kb = poot.mul %krh, %sin : tensor<1x2x5x16xbf16>, tensor<1x1x5x16xbf16>
  %ke = poot.add %ka, %kb : tensor<1x2x5x16xbf16>, tensor<1x2x5x16xbf16>
  %kr = poot.concat %ke, %kpass {axis = 3 : i64} : tensor<1x2x5x16xbf16>, tensor<1x2x5x16xbf16>
  // masking_utils eager causal mask over cache_position = arange(5)
  %qi = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi64>
  %kvi = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi64>
  %vis = poot.compare le, %kvi, %qi : tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %vis, %zero, %min : tensor<1x1x5x5xi1>, tensor<bf16>, tensor<bf16>
  // repeat_kv
  %kx = poot.reshape %kr : tensor<1x2x5x32xbf16> -> tensor<1x2x1x5x32xbf16>
  %kxb = poot.broadcast %kx {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xbf16>
  %krep = poot.reshape %kxb : tensor<1x2x2x5x32xbf16> -> tensor<1x4x5x32xbf16>
  %vx = poot.reshape %v : tensor<1x2x5x32xbf16> -> tensor<1x2x1x5x32xbf16>
  %vxb = poot.broadcast %vx {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xbf16>
  %vrep = poot.reshape %vxb : tensor<1x2x2x5x32xbf16> -> tensor<1x4x5x32xbf16>
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x32xbf16>
  %s0 = poot.matmul %qr, %kt : tensor<1x4x5x32xbf16>, tensor<1x4x32x5xbf16>
  %sc = poot.constant dense<0.176776695> : tensor<bf16>
  %s = poot.mul %s0, %sc : tensor<1x4x5x5xbf16>, tensor<bf16>
  %sm = poot.add %s, %mask : tensor<1x4x5x5xbf16>, tensor<1x1x5x5xbf16>
  %x = poot.convert %sm : tensor<1x4x5x5xbf16> -> tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %zs : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %pb = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xbf16>
  %o = poot.matmul %pb, %vrep : tensor<1x4x5x5xbf16>, tensor<1x4x5x32xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x32xbf16>
  return %ot : tensor<1x5x4x32xbf16>
}
