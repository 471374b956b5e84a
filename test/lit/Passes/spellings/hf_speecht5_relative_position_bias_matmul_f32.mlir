// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers SpeechT5 encoder self-attention
// (models/speecht5/modeling_speecht5.py, SpeechT5Attention.forward with
// position_bias from SpeechT5RelativePositionalEncoding), f32, no padding
// mask: query_states = q_proj(h) * scaling; q, k, v viewed [B * H, T, D];
// attn_weights = bmm(q, k^T); the position bias is pe_k(pos_seq) with
// pos_seq = arange(T)[:, None] - arange(T)[None, :] clamped to
// [-max_length, max_length - 1] (two index assignments) plus max_length,
// an embedding gather giving [T, T, D]; reshape_q = q.view(B * H, -1,
// D).transpose(0, 1) ([T, B * H, D]); rel_pos_bias = matmul(reshape_q,
// position_bias.transpose(-2, -1)).transpose(0, 1).view(B * H, T, T);
// attn_weights += rel_pos_bias; softmax(dim=-1); bmm(probs, v); view(B, H,
// T, D).transpose(1, 2).reshape(B, T, E). The bias depends on q (a
// query-key-position product), so it is an additive tensor the fused op
// takes as its mask. B = 1, H = 2, T = 6, D = 16, max_length = 3.

// CHECK-LABEL: func.func @hf_speecht5_relative_position_bias_matmul_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_speecht5_relative_position_bias_matmul_f32(
    %xq: tensor<1x6x32xf32>, %xk: tensor<1x6x32xf32>, %xv: tensor<1x6x32xf32>,
    %pe_k: tensor<6x16xf32>) -> tensor<1x6x32xf32> {
  // SpeechT5RelativePositionalEncoding
  %ar = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %pi = poot.reshape %ar : tensor<6xi64> -> tensor<6x1xi64>
  %pj = poot.reshape %ar : tensor<6xi64> -> tensor<1x6xi64>
  %pos0 = poot.sub %pi, %pj : tensor<6x1xi64>, tensor<1x6xi64>
  %lo = poot.constant dense<-3> : tensor<i64>
  %hi = poot.constant dense<2> : tensor<i64>
  %mx3 = poot.constant dense<3> : tensor<i64>
  %below = poot.compare lt, %pos0, %lo : tensor<6x6xi64>, tensor<i64>
  %pos1 = poot.select %below, %lo, %pos0 : tensor<6x6xi1>, tensor<i64>, tensor<6x6xi64>
  %above = poot.compare ge, %pos1, %mx3 : tensor<6x6xi64>, tensor<i64>
  %pos2 = poot.select %above, %hi, %pos1 : tensor<6x6xi1>, tensor<i64>, tensor<6x6xi64>
  %pos = poot.add %pos2, %mx3 : tensor<6x6xi64>, tensor<i64>
  %position_bias = poot.gather %pe_k[%pos] {axis = 0 : i64} : tensor<6x16xf32>, tensor<6x6xi64>
  // SpeechT5Attention
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %xq, %sc : tensor<1x6x32xf32>, tensor<f32>
  %q4 = poot.reshape %qs : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %q = poot.reshape %qh : tensor<1x2x6x16xf32> -> tensor<2x6x16xf32>
  %k4 = poot.reshape %xk : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %k = poot.reshape %kh : tensor<1x2x6x16xf32> -> tensor<2x6x16xf32>
  %v4 = poot.reshape %xv : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %v = poot.reshape %vh : tensor<1x2x6x16xf32> -> tensor<2x6x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x6x16xf32>
  %w = poot.matmul %q, %kt : tensor<2x6x16xf32>, tensor<2x16x6xf32>
  // relative attention bias
  %rq = poot.transpose %q {perm = array<i64: 1, 0, 2>} : tensor<2x6x16xf32>
  %pbt = poot.transpose %position_bias {perm = array<i64: 0, 2, 1>} : tensor<6x6x16xf32>
  %rpb0 = poot.matmul %rq, %pbt : tensor<6x2x16xf32>, tensor<6x16x6xf32>
  %rpb1 = poot.transpose %rpb0 {perm = array<i64: 1, 0, 2>} : tensor<6x2x6xf32>
  %wb = poot.add %w, %rpb1 : tensor<2x6x6xf32>, tensor<2x6x6xf32>
  %mx = poot.reduce_max %wb {axis = 2 : i64, keepdim} : tensor<2x6x6xf32>
  %d = poot.sub %wb, %mx : tensor<2x6x6xf32>, tensor<2x6x1xf32>
  %e = poot.exp %d : tensor<2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x6x6xf32>, tensor<2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x6x6xf32>, tensor<2x6x16xf32>
  %o4 = poot.reshape %o : tensor<2x6x16xf32> -> tensor<1x2x6x16xf32>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x16xf32>
  %out = poot.reshape %ot : tensor<1x6x2x16xf32> -> tensor<1x6x32xf32>
  return %out : tensor<1x6x32xf32>
}
