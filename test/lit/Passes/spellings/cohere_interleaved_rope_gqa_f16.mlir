// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers Cohere / Command-R (models/cohere/modeling_cohere.py,
// CohereAttention with eager_attention_forward) on a prompt: the rotary is
// interleaved: apply_rotary_pos_emb upcasts q.float(), k.float(); cos, sin
// (repeat_interleave(freqs, 2) tables, f16, unsqueezed at 1) promote to f32;
// rotate_half: x1 = x[..., ::2], x2 = x[..., 1::2], torch.stack([-x2, x1],
// dim=-1).flatten(-2); q * cos + rotate_half(q) * sin, .to(f16); the
// masking_utils eager causal mask where(kv_idx <= q_idx, 0, finfo(f16).min);
// repeat_kv; matmul(q, k^T) * scaling + mask; softmax(dim=-1, f32).to(f16);
// @ v. GQA 4/2, L = 5, D = 32, f16.

// Strongest form: two interleaved rotaries in f32; the attention reads q and
// k as the graph holds them after .to(f16), so it runs in f16 (n_rep 2,
// causal).
// CHECK-LABEL: func.func @cohere_interleaved_rope_gqa_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 0.1767578125 : f64} : tensor<1x4x5x32xf16>, tensor<1x2x5x32xf16>, tensor<1x2x5x32xf16> -> tensor<1x4x5x32xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.176758, causal{{$}}
func.func @cohere_interleaved_rope_gqa_f16(%q: tensor<1x4x5x32xf16>, %k: tensor<1x2x5x32xf16>,
                                           %v: tensor<1x2x5x32xf16>, %cos0: tensor<1x5x32xf16>,
                                           %sin0: tensor<1x5x32xf16>) -> tensor<1x4x5x32xf16> {
  %qf = poot.convert %q : tensor<1x4x5x32xf16> -> tensor<1x4x5x32xf32>
  %kf = poot.convert %k : tensor<1x2x5x32xf16> -> tensor<1x2x5x32xf32>
  %cos1 = poot.reshape %cos0 : tensor<1x5x32xf16> -> tensor<1x1x5x32xf16>
  %sin1 = poot.reshape %sin0 : tensor<1x5x32xf16> -> tensor<1x1x5x32xf16>
  %cosf = poot.convert %cos1 : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %sinf = poot.convert %sin1 : tensor<1x1x5x32xf16> -> tensor<1x1x5x32xf32>
  %qe = poot.slice %qf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x5x32xf32>
  %qo = poot.slice %qf {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 4, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x5x32xf32>
  %qno = poot.neg %qo : tensor<1x4x5x16xf32>
  %qs1 = poot.reshape %qno : tensor<1x4x5x16xf32> -> tensor<1x4x5x16x1xf32>
  %qs2 = poot.reshape %qe : tensor<1x4x5x16xf32> -> tensor<1x4x5x16x1xf32>
  %qst = poot.concat %qs1, %qs2 {axis = 4 : i64} : tensor<1x4x5x16x1xf32>, tensor<1x4x5x16x1xf32>
  %qrot = poot.reshape %qst : tensor<1x4x5x16x2xf32> -> tensor<1x4x5x32xf32>
  %qa = poot.mul %qf, %cosf : tensor<1x4x5x32xf32>, tensor<1x1x5x32xf32>
  %qb = poot.mul %qrot, %sinf : tensor<1x4x5x32xf32>, tensor<1x1x5x32xf32>
  %qr = poot.add %qa, %qb : tensor<1x4x5x32xf32>, tensor<1x4x5x32xf32>
  %qh = poot.convert %qr : tensor<1x4x5x32xf32> -> tensor<1x4x5x32xf16>
  %ke = poot.slice %kf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x32xf32>
  %ko = poot.slice %kf {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 5, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x5x32xf32>
  %kno = poot.neg %ko : tensor<1x2x5x16xf32>
  %ks1 = poot.reshape %kno : tensor<1x2x5x16xf32> -> tensor<1x2x5x16x1xf32>
  %ks2 = poot.reshape %ke : tensor<1x2x5x16xf32> -> tensor<1x2x5x16x1xf32>
  %kst = poot.concat %ks1, %ks2 {axis = 4 : i64} : tensor<1x2x5x16x1xf32>, tensor<1x2x5x16x1xf32>
  %krot = poot.reshape %kst : tensor<1x2x5x16x2xf32> -> tensor<1x2x5x32xf32>
  %ka = poot.mul %kf, %cosf : tensor<1x2x5x32xf32>, tensor<1x1x5x32xf32>
  %kb = poot.mul %krot, %sinf : tensor<1x2x5x32xf32>, tensor<1x1x5x32xf32>
  %kr = poot.add %ka, %kb : tensor<1x2x5x32xf32>, tensor<1x2x5x32xf32>
  %kh = poot.convert %kr : tensor<1x2x5x32xf32> -> tensor<1x2x5x32xf16>
  %ci = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %qi = poot.reshape %ci : tensor<5xi64> -> tensor<1x1x5x1xi64>
  %kvi = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi64>
  %vis = poot.compare le, %kvi, %qi : tensor<1x1x1x5xi64>, tensor<1x1x5x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %min = poot.constant dense<-65504.0> : tensor<f16>
  %mask = poot.select %vis, %zero, %min : tensor<1x1x5x5xi1>, tensor<f16>, tensor<f16>
  %k5 = poot.reshape %kh : tensor<1x2x5x32xf16> -> tensor<1x2x1x5x32xf16>
  %kbb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xf16>
  %krep = poot.reshape %kbb : tensor<1x2x2x5x32xf16> -> tensor<1x4x5x32xf16>
  %v5 = poot.reshape %v : tensor<1x2x5x32xf16> -> tensor<1x2x1x5x32xf16>
  %vbb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 5, 32>} : tensor<1x2x1x5x32xf16>
  %vr = poot.reshape %vbb : tensor<1x2x2x5x32xf16> -> tensor<1x4x5x32xf16>
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x32xf16>
  %s = poot.matmul %qh, %kt : tensor<1x4x5x32xf16>, tensor<1x4x32x5xf16>
  %sc = poot.constant dense<0.176776695> : tensor<f16>
  %ss = poot.mul %s, %sc : tensor<1x4x5x5xf16>, tensor<f16>
  %sm = poot.add %ss, %mask : tensor<1x4x5x5xf16>, tensor<1x1x5x5xf16>
  %sf = poot.convert %sm : tensor<1x4x5x5xf16> -> tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %sf, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %ph = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xf16>
  %o = poot.matmul %ph, %vr : tensor<1x4x5x5xf16>, tensor<1x4x5x32xf16>
  return %o : tensor<1x4x5x32xf16>
}
