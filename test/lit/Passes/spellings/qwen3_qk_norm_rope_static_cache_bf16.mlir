// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Qwen3 (models/qwen3/modeling_qwen3.py, Qwen3Attention
// .forward with eager_attention_forward) on a 2-token chunk at pos with a
// StaticCache: q = q_norm(q_proj(h).view(B, L, H, D)).transpose(1, 2), k
// likewise with k_norm (Qwen3RMSNorm per head: to(f32), pow(2).mean(-1),
// x * rsqrt(var + 1e-6), weight * x.to(bf16)); apply_rotary_pos_emb with
// cos, sin [B, L, D] unsqueezed at 1 and rotate_half; StaticCache.update
// index_copy_(2, cache_position) (a dynamic_update_slice at pos); the
// masking_utils eager mask kv_idx <= q_idx, q_idx = pos + arange(L),
// where(mask, 0, finfo(bf16).min); repeat_kv; matmul(q, k^T) * scaling +
// mask[:, :, :, :Lk]; softmax(dim=-1, dtype=f32).to(bf16); @ v;
// transpose(1, 2). GQA 4/2, D = 32, cache 10, bf16.

// CHECK-LABEL: func.func @qwen3_qk_norm_rope_static_cache_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 2 : i64, scale = 0.1767578125 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.176758, causal from pos{{$}}
func.func @qwen3_qk_norm_rope_static_cache_bf16(
    %xq: tensor<1x2x128xbf16>, %xk: tensor<1x2x64xbf16>, %xv: tensor<1x2x64xbf16>,
    %qw: tensor<32xbf16>, %kw: tensor<32xbf16>, %cos0: tensor<1x2x32xbf16>, %sin0: tensor<1x2x32xbf16>,
    %ck: tensor<1x2x10x32xbf16>, %cv: tensor<1x2x10x32xbf16>,
    %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: 0, 8>}) -> tensor<1x2x4x32xbf16> {
  %eps = poot.constant dense<9.99999997E-7> : tensor<f32>
  %n32 = poot.constant dense<32.0> : tensor<f32>
  // q_norm
  %q4 = poot.reshape %xq : tensor<1x2x128xbf16> -> tensor<1x2x4x32xbf16>
  %qf = poot.convert %q4 : tensor<1x2x4x32xbf16> -> tensor<1x2x4x32xf32>
  %qq = poot.mul %qf, %qf : tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>
  %qsum = poot.reduce_sum %qq {axis = 3 : i64, keepdim} : tensor<1x2x4x32xf32>
  %qvar = poot.div %qsum, %n32 : tensor<1x2x4x1xf32>, tensor<f32>
  %qve = poot.add %qvar, %eps : tensor<1x2x4x1xf32>, tensor<f32>
  %qr = poot.rsqrt %qve : tensor<1x2x4x1xf32>
  %qn = poot.mul %qf, %qr : tensor<1x2x4x32xf32>, tensor<1x2x4x1xf32>
  %qnb = poot.convert %qn : tensor<1x2x4x32xf32> -> tensor<1x2x4x32xbf16>
  %qnw = poot.mul %qw, %qnb : tensor<32xbf16>, tensor<1x2x4x32xbf16>
  %q = poot.transpose %qnw {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x32xbf16>
  // k_norm
  %k4 = poot.reshape %xk : tensor<1x2x64xbf16> -> tensor<1x2x2x32xbf16>
  %kf = poot.convert %k4 : tensor<1x2x2x32xbf16> -> tensor<1x2x2x32xf32>
  %kk = poot.mul %kf, %kf : tensor<1x2x2x32xf32>, tensor<1x2x2x32xf32>
  %ksum = poot.reduce_sum %kk {axis = 3 : i64, keepdim} : tensor<1x2x2x32xf32>
  %kvar = poot.div %ksum, %n32 : tensor<1x2x2x1xf32>, tensor<f32>
  %kve = poot.add %kvar, %eps : tensor<1x2x2x1xf32>, tensor<f32>
  %kr0 = poot.rsqrt %kve : tensor<1x2x2x1xf32>
  %kn = poot.mul %kf, %kr0 : tensor<1x2x2x32xf32>, tensor<1x2x2x1xf32>
  %knb = poot.convert %kn : tensor<1x2x2x32xf32> -> tensor<1x2x2x32xbf16>
  %knw = poot.mul %kw, %knb : tensor<32xbf16>, tensor<1x2x2x32xbf16>
  %k = poot.transpose %knw {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x32xbf16>
  %v4 = poot.reshape %xv : tensor<1x2x64xbf16> -> tensor<1x2x2x32xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x2x32xbf16>
  // apply_rotary_pos_emb
  %cos = poot.reshape %cos0 : tensor<1x2x32xbf16> -> tensor<1x1x2x32xbf16>
  %sin = poot.reshape %sin0 : tensor<1x2x32xbf16> -> tensor<1x1x2x32xbf16>
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x2x32xbf16>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 4, 2, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x2x32xbf16>
  %nq2 = poot.neg %q2 : tensor<1x4x2x16xbf16>
  %qrot = poot.concat %nq2, %q1 {axis = 3 : i64} : tensor<1x4x2x16xbf16>, tensor<1x4x2x16xbf16>
  %qa = poot.mul %q, %cos : tensor<1x4x2x32xbf16>, tensor<1x1x2x32xbf16>
  %qb = poot.mul %qrot, %sin : tensor<1x4x2x32xbf16>, tensor<1x1x2x32xbf16>
  %qe = poot.add %qa, %qb : tensor<1x4x2x32xbf16>, tensor<1x4x2x32xbf16>
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x2x32xbf16>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 2, 2, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x2x32xbf16>
  %nk2 = poot.neg %k2 : tensor<1x2x2x16xbf16>
  %krot = poot.concat %nk2, %k1 {axis = 3 : i64} : tensor<1x2x2x16xbf16>, tensor<1x2x2x16xbf16>
  %ka = poot.mul %k, %cos : tensor<1x2x2x32xbf16>, tensor<1x1x2x32xbf16>
  %kb0 = poot.mul %krot, %sin : tensor<1x2x2x32xbf16>, tensor<1x1x2x32xbf16>
  %ke = poot.add %ka, %kb0 : tensor<1x2x2x32xbf16>, tensor<1x2x2x32xbf16>
  // StaticCache.update
  %z = poot.constant dense<0> : tensor<i64>
  %kc = poot.dynamic_update_slice %ck[%z, %z, %pos, %z], %ke : tensor<1x2x10x32xbf16>, tensor<1x2x2x32xbf16>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>
  %vc = poot.dynamic_update_slice %cv[%z, %z, %pos, %z], %v : tensor<1x2x10x32xbf16>, tensor<1x2x2x32xbf16>, tensor<i64>, tensor<i64>, tensor<i64>, tensor<i64>
  // masking_utils causal mask, eager form
  %ci = poot.iota {dim = 0 : i64} : tensor<2xi64>
  %cp = poot.add %ci, %pos : tensor<2xi64>, tensor<i64>
  %qi = poot.reshape %cp : tensor<2xi64> -> tensor<1x1x2x1xi64>
  %kvi = poot.iota {dim = 3 : i64} : tensor<1x1x1x10xi64>
  %vis = poot.compare le, %kvi, %qi : tensor<1x1x1x10xi64>, tensor<1x1x2x1xi64>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %vis, %zero, %min : tensor<1x1x2x10xi1>, tensor<bf16>, tensor<bf16>
  // eager_attention_forward
  %k5 = poot.reshape %kc : tensor<1x2x10x32xbf16> -> tensor<1x2x1x10x32xbf16>
  %kbb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 10, 32>} : tensor<1x2x1x10x32xbf16>
  %kr = poot.reshape %kbb : tensor<1x2x2x10x32xbf16> -> tensor<1x4x10x32xbf16>
  %v5 = poot.reshape %vc : tensor<1x2x10x32xbf16> -> tensor<1x2x1x10x32xbf16>
  %vbb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 10, 32>} : tensor<1x2x1x10x32xbf16>
  %vr = poot.reshape %vbb : tensor<1x2x2x10x32xbf16> -> tensor<1x4x10x32xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x10x32xbf16>
  %s = poot.matmul %qe, %kt : tensor<1x4x2x32xbf16>, tensor<1x4x32x10xbf16>
  %sc = poot.constant dense<0.176776695> : tensor<bf16>
  %ss = poot.mul %s, %sc : tensor<1x4x2x10xbf16>, tensor<bf16>
  %cm = poot.slice %mask {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 10>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x2x10xbf16>
  %sm = poot.add %ss, %cm : tensor<1x4x2x10xbf16>, tensor<1x1x2x10xbf16>
  %sf = poot.convert %sm : tensor<1x4x2x10xbf16> -> tensor<1x4x2x10xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x4x2x10xf32>
  %d = poot.sub %sf, %mx : tensor<1x4x2x10xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x10xf32>
  %zz = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x10xf32>
  %p = poot.div %e, %zz : tensor<1x4x2x10xf32>, tensor<1x4x2x1xf32>
  %pb = poot.convert %p : tensor<1x4x2x10xf32> -> tensor<1x4x2x10xbf16>
  %o0 = poot.matmul %pb, %vr : tensor<1x4x2x10xbf16>, tensor<1x4x10x32xbf16>
  %o = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x32xbf16>
  return %o : tensor<1x2x4x32xbf16>
}
