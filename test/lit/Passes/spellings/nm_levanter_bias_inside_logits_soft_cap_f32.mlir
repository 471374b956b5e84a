// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, stanford-crfm levanter (src/levanter/layers/attention.py,
// simple_attention_with_dropout) called with both a bias and
// logits_soft_cap, f32, inference: weights = haliax.dot(query * scale,
// key, axis=head_size); weights = weights + bias (here a per-head bias
// over key_position, an input); weights = tanh(weights / 30) * 30;
// where(causal, weights, -1e9); softmax over key_position; dot with value.
// The bias sits inside the tanh, so the scores are softcap(s + b), not
// softcap(s) + mask: the fused op's score order cannot hold it; must
// decline. Grouped heads (batch, kv_head, q_heads_per_group, position,
// key_position), B = 1, 2 x 2 heads, L = 6, head_size 16.

// CHECK-LABEL: func.func @nm_levanter_bias_inside_logits_soft_cap_f32
// CHECK-NOT: poot.attention
// CHECK: poot.tanh
// EXPLAIN: remark: attention declined: a mask is added before the scale or softcap: the score order differs from (q.k)*scale -> softcap -> +mask
func.func @nm_levanter_bias_inside_logits_soft_cap_f32(
    %q: tensor<1x2x2x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>,
    %bias: tensor<2x2x1x6xf32>) -> tensor<1x2x2x6x16xf32> {
  %qr = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %qrb = poot.reshape %qr : tensor<6xi64> -> tensor<6x1xi64>
  %krb = poot.reshape %qr : tensor<6xi64> -> tensor<1x6xi64>
  %m = poot.compare ge, %qrb, %krb : tensor<6x1xi64>, tensor<1x6xi64>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<1x2x2x6x16xf32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %kt = poot.transpose %k5 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x6x16xf32>
  %w = poot.matmul %qs, %kt : tensor<1x2x2x6x16xf32>, tensor<1x2x1x16x6xf32>
  %wb = poot.add %w, %bias : tensor<1x2x2x6x6xf32>, tensor<2x2x1x6xf32>
  %cap = poot.constant dense<30.0> : tensor<f32>
  %w1 = poot.div %wb, %cap : tensor<1x2x2x6x6xf32>, tensor<f32>
  %w2 = poot.tanh %w1 : tensor<1x2x2x6x6xf32>
  %w3 = poot.mul %w2, %cap : tensor<1x2x2x6x6xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0E+9> : tensor<f32>
  %wm = poot.select %m, %w3, %fill : tensor<6x6xi1>, tensor<1x2x2x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %wm {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xf32>
  %d = poot.sub %wm, %mx : tensor<1x2x2x6x6xf32>, tensor<1x2x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x2x6x6xf32>
  %s = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xf32>
  %p = poot.div %e, %s : tensor<1x2x2x6x6xf32>, tensor<1x2x2x6x1xf32>
  %v5 = poot.reshape %v : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %o = poot.matmul %p, %v5 : tensor<1x2x2x6x6xf32>, tensor<1x2x1x6x16xf32>
  return %o : tensor<1x2x2x6x16xf32>
}
