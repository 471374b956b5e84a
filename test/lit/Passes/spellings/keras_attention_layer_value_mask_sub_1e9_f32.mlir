// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// tf.keras.layers.Attention()(..., mask=[None, value_mask]) without a
// causal mask: scores = tf.matmul(query, key, transpose_b=True) (no
// scale); scores_mask = value_mask[:, None, :]; _apply_scores:
// scores -= 1e9 * cast(logical_not(scores_mask), f32); softmax; @ value.
// A padding input: the subtracted term is the additive tensor mask.
// B = 2, Tq = 3, Tv = 6, D = 16.

// CHECK-LABEL: func.func @keras_attention_layer_value_mask_sub_1e9_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask
func.func @keras_attention_layer_value_mask_sub_1e9_f32(%q: tensor<2x3x16xf32>, %k: tensor<2x6x16xf32>,
                                                        %v: tensor<2x6x16xf32>, %vm: tensor<2x6xi1>)
    -> tensor<2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x3x16xf32>, tensor<2x16x6xf32>
  %m3 = poot.reshape %vm : tensor<2x6xi1> -> tensor<2x1x6xi1>
  %pm = poot.not %m3 : tensor<2x1x6xi1>
  %pf = poot.convert %pm : tensor<2x1x6xi1> -> tensor<2x1x6xf32>
  %big = poot.constant dense<1.0e+09> : tensor<f32>
  %adder = poot.mul %pf, %big : tensor<2x1x6xf32>, tensor<f32>
  %sm = poot.sub %s, %adder : tensor<2x3x6xf32>, tensor<2x1x6xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<2x3x6xf32>
  %d = poot.sub %sm, %m : tensor<2x3x6xf32>, tensor<2x3x1xf32>
  %e = poot.exp %d : tensor<2x3x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x3x6xf32>
  %p = poot.div %e, %z : tensor<2x3x6xf32>, tensor<2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x6xf32>, tensor<2x6x16xf32>
  return %o : tensor<2x3x16xf32>
}
