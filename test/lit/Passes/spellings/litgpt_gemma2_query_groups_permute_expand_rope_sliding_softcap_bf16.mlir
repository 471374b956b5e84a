// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Lightning-AI litgpt (litgpt/model.py as of late 2024, before the QKV
// interleave was dropped), CausalSelfAttention.forward for a Gemma-2 local
// layer, training / prefill (input_pos None), bf16: the fused qkv is viewed
// (B, T, n_query_groups, q_per_kv + 2, hs) and permuted (0, 2, 3, 1, 4);
// split((q_per_kv, 1, 1), dim=2); k and v expand(*q.shape) (the GQA repeat
// before RoPE); q, k, v reshape(B, -1, T, hs); apply_rope on
// q[..., :rope_n_elem] (rope_n_elem = hs: x1, x2 halves, cat(-x2, x1),
// cos/sin (1, T, hs) unsqueezed at -3, x * cos + rotated * sin) and on the
// expanded k. The sliding-window branch builds, with mask None,
// ones(T, T).triu(1).masked_fill_(mask.bool(), -inf) plus
// ones_like(mask).tril(-sliding_window_size).masked_fill_(.., -inf); then
// scaled_dot_product_attention takes the softcapping path:
// q @ k.mT * (1 / sqrt(attention_scores_scalar)), do_softcapping
// (tanh(x / 50) * 50), + mask, softmax(dim=-1, dtype=float).to(bf16), @ v,
// transpose(1, 2), reshape(B, T, nh * hs). (The cat with the empty
// q[..., rope_n_elem:] is left out: it is the identity.)
// B = 1, T = 6, n_query_groups = 2, q_per_kv = 2, hs = 16,
// attention_scores_scalar = 64, sliding_window_size = 3.

// CHECK-LABEL: func.func @litgpt_gemma2_query_groups_permute_expand_rope_sliding_softcap_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 1.250000e-01 : f64, softcap = 5.000000e+01 : f64, window = 3 : i64} : tensor<1x4x6x16xbf16>, tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.125, softcap 50, causal, window 3{{$}}
func.func @litgpt_gemma2_query_groups_permute_expand_rope_sliding_softcap_bf16(
    %qkv: tensor<1x6x128xbf16>, %cos: tensor<1x6x16xbf16>, %sin: tensor<1x6x16xbf16>)
    -> tensor<1x6x64xbf16> {
  %g5 = poot.reshape %qkv : tensor<1x6x128xbf16> -> tensor<1x6x2x4x16xbf16>
  %gp = poot.transpose %g5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x6x2x4x16xbf16>
  %q5 = poot.slice %gp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 2, 6, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x6x16xbf16>
  %k5 = poot.slice %gp {start = array<i64: 0, 0, 2, 0, 0>, limit = array<i64: 1, 2, 3, 6, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x6x16xbf16>
  %v5 = poot.slice %gp {start = array<i64: 0, 0, 3, 0, 0>, limit = array<i64: 1, 2, 4, 6, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x6x16xbf16>
  %ke = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %ve = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %q = poot.reshape %q5 : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %k = poot.reshape %ke : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %v = poot.reshape %ve : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  // apply_rope
  %c4 = poot.reshape %cos : tensor<1x6x16xbf16> -> tensor<1x1x6x16xbf16>
  %s4 = poot.reshape %sin : tensor<1x6x16xbf16> -> tensor<1x1x6x16xbf16>
  %qx1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x16xbf16>
  %qx2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x16xbf16>
  %qn2 = poot.neg %qx2 : tensor<1x4x6x8xbf16>
  %qrot = poot.concat %qn2, %qx1 {axis = 3 : i64} : tensor<1x4x6x8xbf16>, tensor<1x4x6x8xbf16>
  %qa = poot.mul %q, %c4 : tensor<1x4x6x16xbf16>, tensor<1x1x6x16xbf16>
  %qb = poot.mul %qrot, %s4 : tensor<1x4x6x16xbf16>, tensor<1x1x6x16xbf16>
  %qr = poot.add %qa, %qb : tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16>
  %kx1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x16xbf16>
  %kx2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x16xbf16>
  %kn2 = poot.neg %kx2 : tensor<1x4x6x8xbf16>
  %krot = poot.concat %kn2, %kx1 {axis = 3 : i64} : tensor<1x4x6x8xbf16>, tensor<1x4x6x8xbf16>
  %ka = poot.mul %k, %c4 : tensor<1x4x6x16xbf16>, tensor<1x1x6x16xbf16>
  %kb = poot.mul %krot, %s4 : tensor<1x4x6x16xbf16>, tensor<1x1x6x16xbf16>
  %kr = poot.add %ka, %kb : tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16>
  // mask = ones(T, T).triu(1); masked_fill_(mask.bool(), -inf)
  %row = poot.iota {dim = 0 : i64} : tensor<6x6xi64>
  %col = poot.iota {dim = 1 : i64} : tensor<6x6xi64>
  %diff = poot.sub %col, %row : tensor<6x6xi64>, tensor<6x6xi64>
  %one_i = poot.constant dense<1> : tensor<i64>
  %up = poot.compare ge, %diff, %one_i : tensor<6x6xi64>, tensor<i64>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %triu = poot.select %up, %one, %zero : tensor<6x6xi1>, tensor<bf16>, tensor<bf16>
  %tb = poot.compare ne, %triu, %zero : tensor<6x6xbf16>, tensor<bf16>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %cm = poot.select %tb, %ninf, %triu : tensor<6x6xi1>, tensor<bf16>, tensor<6x6xbf16>
  // sliding_window_bias = ones_like(mask).tril(-3); masked_fill_(.., -inf)
  %mw = poot.constant dense<-3> : tensor<i64>
  %lo = poot.compare le, %diff, %mw : tensor<6x6xi64>, tensor<i64>
  %tril = poot.select %lo, %one, %zero : tensor<6x6xi1>, tensor<bf16>, tensor<bf16>
  %lb = poot.compare ne, %tril, %zero : tensor<6x6xbf16>, tensor<bf16>
  %swb = poot.select %lb, %ninf, %tril : tensor<6x6xi1>, tensor<bf16>, tensor<6x6xbf16>
  %mask2 = poot.add %cm, %swb : tensor<6x6xbf16>, tensor<6x6xbf16>
  %mask = poot.reshape %mask2 : tensor<6x6xbf16> -> tensor<1x1x6x6xbf16>
  // softcapping path of scaled_dot_product_attention
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xbf16>
  %s0 = poot.matmul %qr, %kt : tensor<1x4x6x16xbf16>, tensor<1x4x16x6xbf16>
  %sc = poot.constant dense<0.125> : tensor<bf16>
  %s = poot.mul %s0, %sc : tensor<1x4x6x6xbf16>, tensor<bf16>
  %cap = poot.constant dense<50.0> : tensor<bf16>
  %s1 = poot.div %s, %cap : tensor<1x4x6x6xbf16>, tensor<bf16>
  %s2 = poot.tanh %s1 : tensor<1x4x6x6xbf16>
  %s3 = poot.mul %s2, %cap : tensor<1x4x6x6xbf16>, tensor<bf16>
  %sm = poot.add %s3, %mask : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
  %x = poot.convert %sm : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %pb = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  %o = poot.matmul %pb, %v : tensor<1x4x6x6xbf16>, tensor<1x4x6x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xbf16>
  %y = poot.reshape %ot : tensor<1x6x4x16xbf16> -> tensor<1x6x64xbf16>
  return %y : tensor<1x6x64xbf16>
}
