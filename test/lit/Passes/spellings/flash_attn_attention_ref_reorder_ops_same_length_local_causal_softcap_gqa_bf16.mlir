// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Dao-AILab/flash-attention v2.6.3, tests/test_flash_attn.py, attention_ref
// with causal=True, window_size=(3, -1) (causal sets it to (3, 0)),
// softcap=30.0, upcast=True, reorder_ops=True, no padding masks, no
// attn_bias, dropout_p 0, bf16 inputs [b, s, h, d]. q, k, v = q.float(),
// k.float(), v.float(); k = repeat(k, "b s h d -> b s (h g) d", g=2), v
// likewise; reorder_ops: scores = einsum("bthd,bshd->bhts", q, k /
// math.sqrt(d)) (the scale on k, not q); scores / softcap, .tanh(), *
// softcap; construct_local_mask(seqlen_q, seqlen_k, (3, 0)): row_idx =
// arange(sq)[:, None], col_idx = arange(sk), sk = full_like(col_idx,
// seqlen_k), sq the int seqlen_q: logical_or(col_idx > minimum(row_idx + sk
// - sq + 0, sk), col_idx < row_idx + sk - sq - 3); scores.masked_fill_(
// local_mask, -inf); softmax(dim=-1).to(v.dtype) (f32 already);
// attention.masked_fill(all(local_mask, -1, keepdim=True), 0.0);
// einsum("bhts,bshd->bthd", attention, v * dropout_scaling) with
// dropout_scaling = 1.0; output.to(bf16). sq = sk = 8, so key t is visible
// from row i iff i - 3 <= t <= i. b = 2, h = 4, h_k = 2, d = 16.
//
// Strongest form: a top-left band of width 4 (causal, window 4, offset 0);
// every row keeps its diagonal key, so the all(local_mask) guard never
// fires (no zero_empty_rows); softcap 30, scale 1/4 (moved from k), GQA
// 4/2, in f32 between the converts:
//   poot.attention q, k, v {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64, softcap = 3.000000e+01 : f64, window = 4 : i64} : tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-LABEL: func.func @flash_attn_attention_ref_reorder_ops_same_length_local_causal_softcap_gqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64, softcap = 3.000000e+01 : f64, window = 4 : i64} : tensor<2x4x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, softcap 30, causal, window 4; empty-row guard never fires{{$}}
func.func @flash_attn_attention_ref_reorder_ops_same_length_local_causal_softcap_gqa_bf16(
    %q0: tensor<2x8x4x16xbf16>, %k0: tensor<2x8x2x16xbf16>, %v0: tensor<2x8x2x16xbf16>) -> tensor<2x8x4x16xbf16> {
  // if upcast: q, k, v = q.float(), k.float(), v.float()
  %q = poot.convert %q0 : tensor<2x8x4x16xbf16> -> tensor<2x8x4x16xf32>
  %kf = poot.convert %k0 : tensor<2x8x2x16xbf16> -> tensor<2x8x2x16xf32>
  %vf = poot.convert %v0 : tensor<2x8x2x16xbf16> -> tensor<2x8x2x16xf32>
  // k = repeat(k, "b s h d -> b s (h g) d", g=q.shape[2] // k.shape[2]); v likewise
  %k5 = poot.reshape %kf : tensor<2x8x2x16xf32> -> tensor<2x8x2x1x16xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 8, 2, 2, 16>} : tensor<2x8x2x1x16xf32>
  %k = poot.reshape %kb : tensor<2x8x2x2x16xf32> -> tensor<2x8x4x16xf32>
  %v5 = poot.reshape %vf : tensor<2x8x2x16xf32> -> tensor<2x8x2x1x16xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 8, 2, 2, 16>} : tensor<2x8x2x1x16xf32>
  %v = poot.reshape %vb : tensor<2x8x2x2x16xf32> -> tensor<2x8x4x16xf32>
  // reorder_ops: scores = torch.einsum("bthd,bshd->bhts", q, k / math.sqrt(d))
  %sqd = poot.constant dense<4.0> : tensor<f32>
  %ks = poot.div %k, %sqd : tensor<2x8x4x16xf32>, tensor<f32>
  %qt = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %kt = poot.transpose %ks {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x4x16xf32>
  %scores0 = poot.matmul %qt, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>
  // if softcap > 0: scores = scores / softcap; scores = scores.tanh(); scores = scores * softcap
  %cap = poot.constant dense<30.0> : tensor<f32>
  %sd = poot.div %scores0, %cap : tensor<2x4x8x8xf32>, tensor<f32>
  %th = poot.tanh %sd : tensor<2x4x8x8xf32>
  %scores = poot.mul %th, %cap : tensor<2x4x8x8xf32>, tensor<f32>
  // construct_local_mask: row_idx = rearrange(arange(seqlen_q), "s -> s 1"); col_idx = arange(seqlen_k)
  %ri = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %row_idx = poot.reshape %ri : tensor<8xi64> -> tensor<8x1xi64>
  %col_idx = poot.iota {dim = 0 : i64} : tensor<8xi64>
  // sk = torch.full_like(col_idx, seqlen_k)
  %sk = poot.constant dense<8> : tensor<8xi64>
  %sq = poot.constant dense<8> : tensor<i64>
  %w1 = poot.constant dense<0> : tensor<i64>
  %w0 = poot.constant dense<3> : tensor<i64>
  // col_idx > torch.minimum(row_idx + sk - sq + window_size[1], sk)
  %a0 = poot.add %row_idx, %sk : tensor<8x1xi64>, tensor<8xi64>
  %a1 = poot.sub %a0, %sq : tensor<8x8xi64>, tensor<i64>
  %a2 = poot.add %a1, %w1 : tensor<8x8xi64>, tensor<i64>
  %a3 = poot.min %a2, %sk : tensor<8x8xi64>, tensor<8xi64>
  %right = poot.compare gt, %col_idx, %a3 : tensor<8xi64>, tensor<8x8xi64>
  // col_idx < row_idx + sk - sq - window_size[0]
  %b0 = poot.add %row_idx, %sk : tensor<8x1xi64>, tensor<8xi64>
  %b1 = poot.sub %b0, %sq : tensor<8x8xi64>, tensor<i64>
  %b2 = poot.sub %b1, %w0 : tensor<8x8xi64>, tensor<i64>
  %left = poot.compare lt, %col_idx, %b2 : tensor<8xi64>, tensor<8x8xi64>
  %local_mask = poot.or %right, %left : tensor<8x8xi1>, tensor<8x8xi1>
  // scores.masked_fill_(local_mask, float("-inf"))
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %local_mask, %ninf, %scores : tensor<8x8xi1>, tensor<f32>, tensor<2x4x8x8xf32>
  // attention = torch.softmax(scores, dim=-1).to(v.dtype)
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %d = poot.sub %sm, %mx : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %e = poot.exp %d : tensor<2x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %attn = poot.div %e, %z : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  // attention = attention.masked_fill(torch.all(local_mask, dim=-1, keepdim=True), 0.0)
  %lmf = poot.convert %local_mask : tensor<8x8xi1> -> tensor<8x8xf32>
  %allf = poot.reduce_min %lmf {axis = 1 : i64, keepdim} : tensor<8x8xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %all = poot.compare eq, %allf, %onef : tensor<8x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %attn2 = poot.select %all, %zero, %attn : tensor<8x1xi1>, tensor<f32>, tensor<2x4x8x8xf32>
  // output = torch.einsum("bhts,bshd->bthd", attention_drop, v * dropout_scaling)
  %ds = poot.constant dense<1.0> : tensor<f32>
  %vs = poot.mul %v, %ds : tensor<2x8x4x16xf32>, tensor<f32>
  %vt = poot.transpose %vs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %o = poot.matmul %attn2, %vt : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf32>
  // output.to(dtype=dtype_og)
  %out = poot.convert %ot : tensor<2x8x4x16xf32> -> tensor<2x8x4x16xbf16>
  return %out : tensor<2x8x4x16xbf16>
}
