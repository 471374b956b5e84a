// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Dao-AILab/flash-attention flash_attn/utils/testing.py (attention_ref with
// causal=True, window_size=(3, 0) after causal sets the right side to 0,
// softcap=30, upcast=True, no padding masks, dropout_p = 0): q, k, v
// .float(); k and v einops-repeated "b s h d -> b s (h g) d"; scores =
// einsum("bthd,bshd->bhts", q * softmax_scale, k); tanh(scores / softcap)
// * softcap; construct_local_mask (bottom-right aligned: row_idx + sk - sq
// with sk = full_like(col_idx, seqlen_k)): col > min(row + sk - sq, sk) or
// (col < row + sk - sq - 3 and col >= 0), masked_fill_ -inf; softmax(-1);
// masked_fill(all(local_mask, -1, keepdim), 0) for rows with no key;
// einsum("bhts,bshd->bthd", attention, v * 1.0); .to(bf16). Key t is
// visible from row i iff i + 6 - 3 <= t <= i + 6: causal and window 4 at
// offset sk - sq = 6; every row keeps key i + 6 < sk, so the trailing
// masked_fill never fires. GQA 6/2, B = 1, sq = 4, sk = 10, d = 64.

// CHECK-LABEL: func.func @flash_attn_ref_bottom_right_local_softcap_gqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} pos({{.+}}) {causal, n_rep = 3 : i64, scale = 1.250000e-01 : f64, softcap = 3.000000e+01 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.125, softcap 30, causal, window 4 at offset 6; empty-row guard never fires{{$}}
func.func @flash_attn_ref_bottom_right_local_softcap_gqa_bf16(
    %q0: tensor<1x4x6x64xbf16>, %k0: tensor<1x10x2x64xbf16>, %v0: tensor<1x10x2x64xbf16>) -> tensor<1x4x6x64xbf16> {
  // upcast
  %q = poot.convert %q0 : tensor<1x4x6x64xbf16> -> tensor<1x4x6x64xf32>
  %kf = poot.convert %k0 : tensor<1x10x2x64xbf16> -> tensor<1x10x2x64xf32>
  %vf = poot.convert %v0 : tensor<1x10x2x64xbf16> -> tensor<1x10x2x64xf32>
  // repeat(k, "b s h d -> b s (h g) d", g=3)
  %k5 = poot.reshape %kf : tensor<1x10x2x64xf32> -> tensor<1x10x2x1x64xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 10, 2, 3, 64>} : tensor<1x10x2x1x64xf32>
  %k = poot.reshape %kb : tensor<1x10x2x3x64xf32> -> tensor<1x10x6x64xf32>
  %v5 = poot.reshape %vf : tensor<1x10x2x64xf32> -> tensor<1x10x2x1x64xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 10, 2, 3, 64>} : tensor<1x10x2x1x64xf32>
  %v = poot.reshape %vb : tensor<1x10x2x3x64xf32> -> tensor<1x10x6x64xf32>
  // scores = einsum("bthd,bshd->bhts", q * softmax_scale, k)
  %sm = poot.constant dense<1.250000e-01> : tensor<f32>
  %qs = poot.mul %q, %sm : tensor<1x4x6x64xf32>, tensor<f32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x64xf32>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x10x6x64xf32>
  %s0 = poot.matmul %qh, %kh : tensor<1x6x4x64xf32>, tensor<1x6x64x10xf32>
  // softcap
  %cap = poot.constant dense<3.000000e+01> : tensor<f32>
  %s1 = poot.div %s0, %cap : tensor<1x6x4x10xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x6x4x10xf32>
  %s = poot.mul %s2, %cap : tensor<1x6x4x10xf32>, tensor<f32>
  // construct_local_mask(4, 10, (3, 0), 0)
  %row1 = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %row = poot.reshape %row1 : tensor<4xi64> -> tensor<4x1xi64>
  %col = poot.iota {dim = 0 : i64} : tensor<10xi64>
  %sk = poot.constant dense<10> : tensor<10xi64>
  %sq = poot.constant dense<4> : tensor<i64>
  %r0 = poot.add %row, %sk : tensor<4x1xi64>, tensor<10xi64>
  %r1 = poot.sub %r0, %sq : tensor<4x10xi64>, tensor<i64>
  %w1 = poot.constant dense<0> : tensor<i64>
  %r2 = poot.add %r1, %w1 : tensor<4x10xi64>, tensor<i64>
  %rmin = poot.min %r2, %sk : tensor<4x10xi64>, tensor<10xi64>
  %right = poot.compare gt, %col, %rmin : tensor<10xi64>, tensor<4x10xi64>
  %w0 = poot.constant dense<3> : tensor<i64>
  %l0 = poot.sub %r1, %w0 : tensor<4x10xi64>, tensor<i64>
  %left0 = poot.compare lt, %col, %l0 : tensor<10xi64>, tensor<4x10xi64>
  %sink = poot.constant dense<0> : tensor<i64>
  %left1 = poot.compare ge, %col, %sink : tensor<10xi64>, tensor<i64>
  %left = poot.and %left0, %left1 : tensor<4x10xi1>, tensor<10xi1>
  %local = poot.or %right, %left : tensor<4x10xi1>, tensor<4x10xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sl = poot.select %local, %ninf, %s : tensor<4x10xi1>, tensor<f32>, tensor<1x6x4x10xf32>
  // softmax(scores, dim=-1).to(v.dtype)
  %mx = poot.reduce_max %sl {axis = 3 : i64, keepdim} : tensor<1x6x4x10xf32>
  %d = poot.sub %sl, %mx : tensor<1x6x4x10xf32>, tensor<1x6x4x1xf32>
  %e = poot.exp %d : tensor<1x6x4x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x4x10xf32>
  %p = poot.div %e, %z : tensor<1x6x4x10xf32>, tensor<1x6x4x1xf32>
  // masked_fill(torch.all(local_mask, dim=-1, keepdim=True), 0.0)
  %li = poot.convert %local : tensor<4x10xi1> -> tensor<4x10xi32>
  %lall = poot.reduce_min %li {axis = 1 : i64, keepdim} : tensor<4x10xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %full = poot.compare eq, %lall, %one : tensor<4x1xi32>, tensor<i32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %pa = poot.select %full, %zf, %p : tensor<4x1xi1>, tensor<f32>, tensor<1x6x4x10xf32>
  // einsum("bhts,bshd->bthd", attention_drop, v * dropout_scaling)
  %dsc = poot.constant dense<1.0> : tensor<f32>
  %vs = poot.mul %v, %dsc : tensor<1x10x6x64xf32>, tensor<f32>
  %vh = poot.transpose %vs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x10x6x64xf32>
  %oh = poot.matmul %pa, %vh : tensor<1x6x4x10xf32>, tensor<1x6x10x64xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x64xf32>
  %ob = poot.convert %o : tensor<1x4x6x64xf32> -> tensor<1x4x6x64xbf16>
  return %ob : tensor<1x4x6x64xbf16>
}
