// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// mistralai/mistral-src one_file_ref.py (Attention.forward and
// Transformer.forward), prefill of 6 tokens in f16, from q, k, v after
// apply_rotary_emb: the rolling-cache scatter is not read in prefill, so
// key, value = repeat_kv(xk, xv) is torch.repeat_interleave(.., dim=2) in
// the [bsz, seqlen, n_kv, d] layout, then transpose(1, 2); scores =
// matmul(q, k^T) * head_dim**-0.5; scores += mask[None, None] with the mask
// built at run time: torch.full((L, L), 1, f16), torch.tril(diagonal=0),
// torch.triu(diagonal=-sliding_window), torch.log (log 1 = 0, log 0 =
// -inf); scores.float(), softmax(dim=-1).type_as(query); @ value;
// transpose(1, 2). sliding_window = 3 keeps keys i - 3 .. i: a window of
// 4. GQA 8/2, D = 16, B = 1.

// CHECK-LABEL: func.func @mistral_one_file_ref_log_band_repeat_interleave_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal, window 4{{$}}
func.func @mistral_one_file_ref_log_band_repeat_interleave_f16(
    %xq: tensor<1x6x8x16xf16>, %xk: tensor<1x6x2x16xf16>, %xv: tensor<1x6x2x16xf16>) -> tensor<1x6x8x16xf16> {
  // repeat_interleave(repeats=4, dim=2)
  %k5 = poot.reshape %xk : tensor<1x6x2x16xf16> -> tensor<1x6x2x1x16xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 6, 2, 4, 16>} : tensor<1x6x2x1x16xf16>
  %kr = poot.reshape %kb : tensor<1x6x2x4x16xf16> -> tensor<1x6x8x16xf16>
  %v5 = poot.reshape %xv : tensor<1x6x2x16xf16> -> tensor<1x6x2x1x16xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 6, 2, 4, 16>} : tensor<1x6x2x1x16xf16>
  %vr = poot.reshape %vb : tensor<1x6x2x4x16xf16> -> tensor<1x6x8x16xf16>
  %q = poot.transpose %xq {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x8x16xf16>
  %k = poot.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x8x16xf16>
  %v = poot.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x8x16xf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x6x16xf16>
  %s0 = poot.matmul %q, %kt : tensor<1x8x6x16xf16>, tensor<1x8x16x6xf16>
  %sc = poot.constant dense<0.25> : tensor<f16>
  %s = poot.mul %s0, %sc : tensor<1x8x6x6xf16>, tensor<f16>
  // mask = log(triu(tril(full(1)), -sliding_window))
  %ones = poot.constant dense<1.0> : tensor<6x6xf16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %ri = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %dji = poot.sub %ci, %ri : tensor<6x6xi32>, tensor<6x6xi32>
  %d0 = poot.constant dense<0> : tensor<i32>
  %lower = poot.compare le, %dji, %d0 : tensor<6x6xi32>, tensor<i32>
  %tril = poot.select %lower, %ones, %zero : tensor<6x6xi1>, tensor<6x6xf16>, tensor<f16>
  %dw = poot.constant dense<-3> : tensor<i32>
  %upper = poot.compare ge, %dji, %dw : tensor<6x6xi32>, tensor<i32>
  %band = poot.select %upper, %tril, %zero : tensor<6x6xi1>, tensor<6x6xf16>, tensor<f16>
  %mask = poot.log %band : tensor<6x6xf16>
  %mask4 = poot.reshape %mask : tensor<6x6xf16> -> tensor<1x1x6x6xf16>
  %sm = poot.add %s, %mask4 : tensor<1x8x6x6xf16>, tensor<1x1x6x6xf16>
  %x = poot.convert %sm : tensor<1x8x6x6xf16> -> tensor<1x8x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x8x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x8x6x6xf32>, tensor<1x8x6x1xf32>
  %e = poot.exp %d : tensor<1x8x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x6x6xf32>
  %p = poot.div %e, %zs : tensor<1x8x6x6xf32>, tensor<1x8x6x1xf32>
  %ph = poot.convert %p : tensor<1x8x6x6xf32> -> tensor<1x8x6x6xf16>
  %o = poot.matmul %ph, %v : tensor<1x8x6x6xf16>, tensor<1x8x6x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x6x16xf16>
  return %ot : tensor<1x6x8x16xf16>
}
