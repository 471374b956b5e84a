// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// karpathy/llama2.c model.py, Attention.forward on its manual path (no
// scaled_dot_product_attention: self.flash False), the model in f16
// (model.half(), so the buffers are f16 too): xq, xk, xv viewed
// [B, L, H, D] and left in that layout for apply_rotary_emb, which takes
// xq.float().reshape(.., -1, 2).unbind(-1) (even / odd channels as the
// real / imaginary parts), multiplies by freqs_cos, freqs_sin (the
// Transformer's f32 buffers sliced [:seqlen], viewed [1, L, 1, D/2] by
// reshape_for_broadcast), stacks (r, i) on a new last dim, flatten(3),
// type_as(xq); repeat_kv in the [B, L, Hkv, D] layout
// (x[:, :, :, None, :].expand(.., n_rep, ..).reshape(.., Hkv * n_rep, D));
// transpose(1, 2) of all three; scores = q @ k^T / sqrt(head_dim) +
// self.mask[:, :, :seqlen, :seqlen], the registered buffer
// triu(full((1, 1, max_seq_len, max_seq_len), -inf), 1); softmax(
// scores.float()).type_as(xq); @ v; transpose(1, 2), view(B, L, -1).
// GQA 4/2, B = 2, L = 5, max_seq_len = 8, D = 16.

// CHECK-LABEL: func.func @llama2c_blhd_repeat_kv_unbind_rope_triu_inf_buffer_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal{{$}}
func.func @llama2c_blhd_repeat_kv_unbind_rope_triu_inf_buffer_f16(
    %xq: tensor<2x5x4x16xf16>, %xk: tensor<2x5x2x16xf16>, %xv: tensor<2x5x2x16xf16>,
    %freqs_cos: tensor<8x8xf32>, %freqs_sin: tensor<8x8xf32>) -> tensor<2x5x64xf16> {
  // freqs_cos[:seqlen], reshape_for_broadcast
  %fc0 = poot.slice %freqs_cos {start = array<i64: 0, 0>, limit = array<i64: 5, 8>, step = array<i64: 1, 1>} : tensor<8x8xf32>
  %fs0 = poot.slice %freqs_sin {start = array<i64: 0, 0>, limit = array<i64: 5, 8>, step = array<i64: 1, 1>} : tensor<8x8xf32>
  %fc = poot.reshape %fc0 : tensor<5x8xf32> -> tensor<1x5x1x8xf32>
  %fs = poot.reshape %fs0 : tensor<5x8xf32> -> tensor<1x5x1x8xf32>
  // apply_rotary_emb on xq
  %qf = poot.convert %xq : tensor<2x5x4x16xf16> -> tensor<2x5x4x16xf32>
  %qp = poot.reshape %qf : tensor<2x5x4x16xf32> -> tensor<2x5x4x8x2xf32>
  %qr5 = poot.slice %qp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 2, 5, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x5x4x8x2xf32>
  %qi5 = poot.slice %qp {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 2, 5, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x5x4x8x2xf32>
  %qr = poot.reshape %qr5 : tensor<2x5x4x8x1xf32> -> tensor<2x5x4x8xf32>
  %qi = poot.reshape %qi5 : tensor<2x5x4x8x1xf32> -> tensor<2x5x4x8xf32>
  %qrc = poot.mul %qr, %fc : tensor<2x5x4x8xf32>, tensor<1x5x1x8xf32>
  %qis = poot.mul %qi, %fs : tensor<2x5x4x8xf32>, tensor<1x5x1x8xf32>
  %qor = poot.sub %qrc, %qis : tensor<2x5x4x8xf32>, tensor<2x5x4x8xf32>
  %qrs = poot.mul %qr, %fs : tensor<2x5x4x8xf32>, tensor<1x5x1x8xf32>
  %qic = poot.mul %qi, %fc : tensor<2x5x4x8xf32>, tensor<1x5x1x8xf32>
  %qoi = poot.add %qrs, %qic : tensor<2x5x4x8xf32>, tensor<2x5x4x8xf32>
  %qor5 = poot.reshape %qor : tensor<2x5x4x8xf32> -> tensor<2x5x4x8x1xf32>
  %qoi5 = poot.reshape %qoi : tensor<2x5x4x8xf32> -> tensor<2x5x4x8x1xf32>
  %qst = poot.concat %qor5, %qoi5 {axis = 4 : i64} : tensor<2x5x4x8x1xf32>, tensor<2x5x4x8x1xf32>
  %qfl = poot.reshape %qst : tensor<2x5x4x8x2xf32> -> tensor<2x5x4x16xf32>
  %qro = poot.convert %qfl : tensor<2x5x4x16xf32> -> tensor<2x5x4x16xf16>
  // apply_rotary_emb on xk
  %kf = poot.convert %xk : tensor<2x5x2x16xf16> -> tensor<2x5x2x16xf32>
  %kp = poot.reshape %kf : tensor<2x5x2x16xf32> -> tensor<2x5x2x8x2xf32>
  %kr5 = poot.slice %kp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 2, 5, 2, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x5x2x8x2xf32>
  %ki5 = poot.slice %kp {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 2, 5, 2, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x5x2x8x2xf32>
  %kr = poot.reshape %kr5 : tensor<2x5x2x8x1xf32> -> tensor<2x5x2x8xf32>
  %ki = poot.reshape %ki5 : tensor<2x5x2x8x1xf32> -> tensor<2x5x2x8xf32>
  %krc = poot.mul %kr, %fc : tensor<2x5x2x8xf32>, tensor<1x5x1x8xf32>
  %kis = poot.mul %ki, %fs : tensor<2x5x2x8xf32>, tensor<1x5x1x8xf32>
  %kor = poot.sub %krc, %kis : tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>
  %krs = poot.mul %kr, %fs : tensor<2x5x2x8xf32>, tensor<1x5x1x8xf32>
  %kic = poot.mul %ki, %fc : tensor<2x5x2x8xf32>, tensor<1x5x1x8xf32>
  %koi = poot.add %krs, %kic : tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>
  %kor5 = poot.reshape %kor : tensor<2x5x2x8xf32> -> tensor<2x5x2x8x1xf32>
  %koi5 = poot.reshape %koi : tensor<2x5x2x8xf32> -> tensor<2x5x2x8x1xf32>
  %kst = poot.concat %kor5, %koi5 {axis = 4 : i64} : tensor<2x5x2x8x1xf32>, tensor<2x5x2x8x1xf32>
  %kfl = poot.reshape %kst : tensor<2x5x2x8x2xf32> -> tensor<2x5x2x16xf32>
  %kro = poot.convert %kfl : tensor<2x5x2x16xf32> -> tensor<2x5x2x16xf16>
  // repeat_kv in [B, L, Hkv, D]
  %k5 = poot.reshape %kro : tensor<2x5x2x16xf16> -> tensor<2x5x2x1x16xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 5, 2, 2, 16>} : tensor<2x5x2x1x16xf16>
  %krep = poot.reshape %kb : tensor<2x5x2x2x16xf16> -> tensor<2x5x4x16xf16>
  %v5 = poot.reshape %xv : tensor<2x5x2x16xf16> -> tensor<2x5x2x1x16xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 5, 2, 2, 16>} : tensor<2x5x2x1x16xf16>
  %vrep = poot.reshape %vb : tensor<2x5x2x2x16xf16> -> tensor<2x5x4x16xf16>
  %q = poot.transpose %qro {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf16>
  %k = poot.transpose %krep {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf16>
  %v = poot.transpose %vrep {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x16xf16>
  %s0 = poot.matmul %q, %kt : tensor<2x4x5x16xf16>, tensor<2x4x16x5xf16>
  %sq = poot.constant dense<4.0> : tensor<f16>
  %s = poot.div %s0, %sq : tensor<2x4x5x5xf16>, tensor<f16>
  // self.mask[:, :, :seqlen, :seqlen]
  %buf = poot.constant dense<[[[[0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x8x8xf16>
  %m = poot.slice %buf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 5, 5>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x8x8xf16>
  %sm = poot.add %s, %m : tensor<2x4x5x5xf16>, tensor<1x1x5x5xf16>
  %x = poot.convert %sm : tensor<2x4x5x5xf16> -> tensor<2x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %e = poot.exp %d : tensor<2x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %p = poot.div %e, %z : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %ph = poot.convert %p : tensor<2x4x5x5xf32> -> tensor<2x4x5x5xf16>
  %o = poot.matmul %ph, %v : tensor<2x4x5x5xf16>, tensor<2x4x5x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x5x16xf16>
  %out = poot.reshape %ot : tensor<2x5x4x16xf16> -> tensor<2x5x64xf16>
  return %out : tensor<2x5x64xf16>
}
