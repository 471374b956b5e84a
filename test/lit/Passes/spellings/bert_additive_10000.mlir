// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// BERT as a decoder: get_extended_attention_mask turns the causal {0, 1}
// mask into an additive (1.0 - mask) * -10000.0, added to scores divided by
// sqrt(D). Row i keeps keys 0..i, and a hidden key's exp(s - 10000 - max) is
// 0 in f32 while the scores stay within +-4948, so it fuses as causal. Four
// heads, D = 64, L = 8.

// CHECK-LABEL: func.func @bert_additive_10000
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x8x64xf32>, %[[K:[^:]+]]: tensor<1x4x8x64xf32>, %[[V:[^:]+]]: tensor<1x4x8x64xf32>
// out = softmax((q . k) / 8, keys t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @bert_additive_10000(%q: tensor<1x4x8x64xf32>, %k: tensor<1x4x8x64xf32>,
                               %v: tensor<1x4x8x64xf32>) -> tensor<1x4x8x64xf32> {
  %keep = poot.constant dense<[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]> : tensor<8x8xi1>
  %keepf = poot.convert %keep : tensor<8x8xi1> -> tensor<8x8xf32>
  %keep4 = poot.reshape %keepf : tensor<8x8xf32> -> tensor<1x1x8x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %keep4 : tensor<f32>, tensor<1x1x8x8xf32>
  %big = poot.constant dense<-1.0e+04> : tensor<f32>
  %mask = poot.mul %inv, %big : tensor<1x1x8x8xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x64xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x8x64xf32>, tensor<1x4x64x8xf32>
  %c = poot.constant dense<8.0> : tensor<f32>
  %ss = poot.div %s, %c : tensor<1x4x8x8xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<1x4x8x8xf32>
  %d = poot.sub %sm, %m : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %e = poot.exp %d : tensor<1x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<1x4x8x8xf32>
  %p = poot.div %e, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x8x8xf32>, tensor<1x4x8x64xf32>
  return %o : tensor<1x4x8x64xf32>
}
