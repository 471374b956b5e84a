// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, stanford-crfm levanter (src/levanter/layers/attention.py,
// simple_attention_with_dropout) in training, f32, with dropout = 0.1 and
// inference=False: the causal mask arange(QPos) >= arange(KPos),
// where(m, w, -1e9), haliax.nn.softmax over key_position, then
// haliax.nn.dropout (haliax/nn/dropout.py): mask = haliax.random
// .bernoulli(key, x.axes, 1 - pdrop) (the draw is a graph input here),
// out = where(mask, x / (1 - pdrop), 0), before haliax.dot(out, value,
// axis=key_position). The kept weights are rescaled and the dropped ones
// zeroed by a condition the scores are not masked with, so each row no
// longer sums to 1: not softmax attention; must decline.
// Grouped heads as in Levanter's Attention: (batch, kv_head,
// q_heads_per_group, position, key_position), B = 1, 2 x 2 heads, L = 6,
// head_size 16.

// CHECK-LABEL: func.func @nm_levanter_attention_dropout_bernoulli_where_after_softmax_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: the denominator is not the sum of the numerator
func.func @nm_levanter_attention_dropout_bernoulli_where_after_softmax_f32(
    %q: tensor<1x2x2x6x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>,
    %keep: tensor<1x2x2x6x6xi1>) -> tensor<1x2x2x6x16xf32> {
  %qr = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %qrb = poot.reshape %qr : tensor<6xi64> -> tensor<6x1xi64>
  %krb = poot.reshape %qr : tensor<6xi64> -> tensor<1x6xi64>
  %m = poot.compare ge, %qrb, %krb : tensor<6x1xi64>, tensor<1x6xi64>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<1x2x2x6x16xf32>, tensor<f32>
  %k5 = poot.reshape %k : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %kt = poot.transpose %k5 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x6x16xf32>
  %w = poot.matmul %qs, %kt : tensor<1x2x2x6x16xf32>, tensor<1x2x1x16x6xf32>
  %fill = poot.constant dense<-1.0E+9> : tensor<f32>
  %wm = poot.select %m, %w, %fill : tensor<6x6xi1>, tensor<1x2x2x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %wm {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xf32>
  %d = poot.sub %wm, %mx : tensor<1x2x2x6x6xf32>, tensor<1x2x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x2x6x6xf32>
  %s = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xf32>
  %p = poot.div %e, %s : tensor<1x2x2x6x6xf32>, tensor<1x2x2x6x1xf32>
  // haliax.nn.dropout(weights, 0.1, inference=False)
  %kp = poot.constant dense<0.899999976> : tensor<f32>
  %pq = poot.div %p, %kp : tensor<1x2x2x6x6xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %pd = poot.select %keep, %pq, %zero : tensor<1x2x2x6x6xi1>, tensor<1x2x2x6x6xf32>, tensor<f32>
  %v5 = poot.reshape %v : tensor<1x2x6x16xf32> -> tensor<1x2x1x6x16xf32>
  %o = poot.matmul %pd, %v5 : tensor<1x2x2x6x6xf32>, tensor<1x2x1x6x16xf32>
  return %o : tensor<1x2x2x6x16xf32>
}
