// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers SqueezeBERT (models/squeezebert/modeling_squeezebert.py,
// SqueezeBertSelfAttention.forward) in f16, data layout [N, C, W]
// throughout: query / key / value are nn.Conv1d(C, C, kernel_size=1,
// groups=4) (a block-diagonal product per group of 8 channels, not aligned
// with the 16-channel heads); transpose_for_scores views [N, C1, C2, W] and
// permutes to [N, C1, W, C2]; transpose_key_for_scores only views (no
// permute: the keys arrive as k^T); attention_score = matmul(q, k) /
// sqrt(head_size) + attention_mask, the extended mask of
// get_extended_attention_mask ((1.0 - mask[:, None, None, :]) *
// finfo(f16).min); nn.Softmax(dim=-1); matmul(probs, v); transpose_output
// permutes back to [N, C1, C2, W] and views [N, C, W]. N = 2, C = 32,
// 2 heads of 16, W = 6.

// CHECK-LABEL: func.func @hf_squeezebert_ncw_grouped_conv1d_key_no_permute_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_squeezebert_ncw_grouped_conv1d_key_no_permute_f16(
    %x: tensor<2x32x6xf16>,
    %wq: tensor<4x8x8xf16>, %wk: tensor<4x8x8xf16>, %wv: tensor<4x8x8xf16>,
    %bq: tensor<32x1xf16>, %bk: tensor<32x1xf16>, %bv: tensor<32x1xf16>,
    %attention_mask: tensor<2x6xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x32x6xf16> {
  // nn.Conv1d(kernel_size=1, groups=4): per group [8 out, 8 in] x [8, W]
  %xg = poot.reshape %x : tensor<2x32x6xf16> -> tensor<2x4x8x6xf16>
  %q0 = poot.matmul %wq, %xg : tensor<4x8x8xf16>, tensor<2x4x8x6xf16>
  %q1 = poot.reshape %q0 : tensor<2x4x8x6xf16> -> tensor<2x32x6xf16>
  %mq = poot.add %q1, %bq : tensor<2x32x6xf16>, tensor<32x1xf16>
  %k0 = poot.matmul %wk, %xg : tensor<4x8x8xf16>, tensor<2x4x8x6xf16>
  %k1 = poot.reshape %k0 : tensor<2x4x8x6xf16> -> tensor<2x32x6xf16>
  %mk = poot.add %k1, %bk : tensor<2x32x6xf16>, tensor<32x1xf16>
  %v0 = poot.matmul %wv, %xg : tensor<4x8x8xf16>, tensor<2x4x8x6xf16>
  %v1 = poot.reshape %v0 : tensor<2x4x8x6xf16> -> tensor<2x32x6xf16>
  %mv = poot.add %v1, %bv : tensor<2x32x6xf16>, tensor<32x1xf16>
  // transpose_for_scores / transpose_key_for_scores
  %q4 = poot.reshape %mq : tensor<2x32x6xf16> -> tensor<2x2x16x6xf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x6xf16>
  %k = poot.reshape %mk : tensor<2x32x6xf16> -> tensor<2x2x16x6xf16>
  %v4 = poot.reshape %mv : tensor<2x32x6xf16> -> tensor<2x2x16x6xf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x6xf16>
  // attention_score = matmul(query_layer, key_layer) / sqrt(attention_head_size)
  %s0 = poot.matmul %q, %k : tensor<2x2x6x16xf16>, tensor<2x2x16x6xf16>
  %sq = poot.constant dense<4.0> : tensor<f16>
  %s = poot.div %s0, %sq : tensor<2x2x6x6xf16>, tensor<f16>
  // get_extended_attention_mask: (1.0 - mask[:, None, None, :].to(f16)) * finfo(f16).min
  %am4 = poot.reshape %attention_mask : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
  %amf = poot.convert %am4 : tensor<2x1x1x6xi64> -> tensor<2x1x1x6xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %inv = poot.sub %one, %amf : tensor<f16>, tensor<2x1x1x6xf16>
  %fmin = poot.constant dense<-65504.0> : tensor<f16>
  %mask = poot.mul %inv, %fmin : tensor<2x1x1x6xf16>, tensor<f16>
  %xs = poot.add %s, %mask : tensor<2x2x6x6xf16>, tensor<2x1x1x6xf16>
  // nn.Softmax(dim=-1) (half in, f32 accumulation, half out)
  %xf = poot.convert %xs : tensor<2x2x6x6xf16> -> tensor<2x2x6x6xf32>
  %mx = poot.reduce_max %xf {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %xf, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %ph = poot.convert %p : tensor<2x2x6x6xf32> -> tensor<2x2x6x6xf16>
  // context_layer = matmul(attention_probs, value_layer); transpose_output
  %c0 = poot.matmul %ph, %v : tensor<2x2x6x6xf16>, tensor<2x2x6x16xf16>
  %c1 = poot.transpose %c0 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf16>
  %o = poot.reshape %c1 : tensor<2x2x16x6xf16> -> tensor<2x32x6xf16>
  return %o : tensor<2x32x6xf16>
}
