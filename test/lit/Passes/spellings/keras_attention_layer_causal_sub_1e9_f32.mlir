// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// tf.keras.layers.Attention(use_scale=True)(..., use_causal_mask=True),
// Luong dot-product attention on one head, rank 3 [B, T, D]:
// scores = tf.matmul(query, key, transpose_b=True); scores *= self.scale
// (the trained scalar, 0.375 here); the causal mask
// tf.linalg.band_part(ones((1, Tq, Tv)), -1, 0) cast to bool;
// _apply_scores: scores -= 1e9 * cast(logical_not(mask), f32);
// tf.nn.softmax; tf.matmul(weights, value). B = 2, T = 5, D = 16.

// CHECK-LABEL: func.func @keras_attention_layer_causal_sub_1e9_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 3.750000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.375, causal
func.func @keras_attention_layer_causal_sub_1e9_f32(%q: tensor<2x5x16xf32>, %k: tensor<2x5x16xf32>,
                                                    %v: tensor<2x5x16xf32>) -> tensor<2x5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x5x16xf32>, tensor<2x16x5xf32>
  %c = poot.constant dense<0.375> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x5x5xf32>, tensor<f32>
  %band = poot.constant dense<[[[1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]]]> : tensor<1x5x5xf32>
  %bz = poot.constant dense<0.0> : tensor<f32>
  %cm = poot.compare ne, %band, %bz : tensor<1x5x5xf32>, tensor<f32>
  %pm = poot.not %cm : tensor<1x5x5xi1>
  %pf = poot.convert %pm : tensor<1x5x5xi1> -> tensor<1x5x5xf32>
  %big = poot.constant dense<1.0e+09> : tensor<f32>
  %adder = poot.mul %pf, %big : tensor<1x5x5xf32>, tensor<f32>
  %sm = poot.sub %ss, %adder : tensor<2x5x5xf32>, tensor<1x5x5xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %d = poot.sub %sm, %m : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %e = poot.exp %d : tensor<2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %p = poot.div %e, %z : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<2x5x5xf32>, tensor<2x5x16xf32>
  return %o : tensor<2x5x16xf32>
}
