// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers LayoutLMv3 (models/layoutlmv3/modeling_layoutlmv3.py,
// LayoutLMv3SelfAttention.forward with has_relative_attention_bias and
// has_spatial_attention_bias): attention_scores = matmul(q / sqrt(d), k^T)
// (the QT(K/sqrt(d)) reordering of the PB-Relax paper);
// += (rel_pos + rel_2d_pos) / sqrt(d) (the 1D and 2D relative position
// biases [B, H, L, L] the encoder computes from bucketed positions and
// bboxes); + the extended padding mask (1 - mask[:, None, None, :]) *
// finfo(f32).min; cogview_attention (alpha = 32): scaled = s / 32,
// max_value = scaled.amax(dim=-1).unsqueeze(-1), (scaled - max_value) *
// 32, then nn.Softmax(dim=-1) (a second max subtraction); @ v. The
// CogView trick only shifts each row by 32 * max(s / 32): the softmax is
// that of s. The biases and the padding stay a tensor mask.
// MHA, B = 2, H = 2, L = 6, d = 64.

// CHECK-LABEL: func.func @hf_layoutlmv3_cogview_pb_relax_rel2d_padding_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, tensor mask
func.func @hf_layoutlmv3_cogview_pb_relax_rel2d_padding_f32(
    %q: tensor<2x2x6x64xf32>, %k: tensor<2x2x6x64xf32>, %v: tensor<2x2x6x64xf32>,
    %rel_pos: tensor<2x2x6x6xf32>, %rel_2d_pos: tensor<2x2x6x6xf32>,
    %attention_mask: tensor<2x6xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x6x128xf32> {
  // get_extended_attention_mask
  %am4 = poot.reshape %attention_mask : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
  %amf = poot.convert %am4 : tensor<2x1x1x6xi64> -> tensor<2x1x1x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %amf : tensor<f32>, tensor<2x1x1x6xf32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %ext = poot.mul %inv, %fmin : tensor<2x1x1x6xf32>, tensor<f32>
  // attention_scores = matmul(query_layer / sqrt(d), key_layer^T)
  %sd = poot.constant dense<8.0> : tensor<f32>
  %qs = poot.div %q, %sd : tensor<2x2x6x64xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x64xf32>
  %s0 = poot.matmul %qs, %kt : tensor<2x2x6x64xf32>, tensor<2x2x64x6xf32>
  %rb = poot.add %rel_pos, %rel_2d_pos : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %rbs = poot.div %rb, %sd : tensor<2x2x6x6xf32>, tensor<f32>
  %s1 = poot.add %s0, %rbs : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %s = poot.add %s1, %ext : tensor<2x2x6x6xf32>, tensor<2x1x1x6xf32>
  // cogview_attention(attention_scores, alpha=32)
  %alpha = poot.constant dense<32.0> : tensor<f32>
  %sc = poot.div %s, %alpha : tensor<2x2x6x6xf32>, tensor<f32>
  %mv = poot.reduce_max %sc {axis = 3 : i64} : tensor<2x2x6x6xf32>
  %mv4 = poot.reshape %mv : tensor<2x2x6xf32> -> tensor<2x2x6x1xf32>
  %sh = poot.sub %sc, %mv4 : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %ns = poot.mul %sh, %alpha : tensor<2x2x6x6xf32>, tensor<f32>
  // nn.Softmax(dim=-1)
  %mx = poot.reduce_max %ns {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %ns, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %z : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %c0 = poot.matmul %p, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x64xf32>
  %c1 = poot.transpose %c0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x64xf32>
  %c = poot.reshape %c1 : tensor<2x6x2x64xf32> -> tensor<2x6x128xf32>
  return %c : tensor<2x6x128xf32>
}
