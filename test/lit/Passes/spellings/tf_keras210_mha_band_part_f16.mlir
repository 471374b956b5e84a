// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// tf.keras 2.10 MultiHeadAttention(use_causal_mask=True) under the
// mixed_float16 policy: _compute_causal_mask is tf.linalg.band_part(
// tf.ones((1, L, S), tf.bool), -1, 0) (a constant once traced);
// _compute_attention: query = tf.multiply(query, 1 / sqrt(key_dim)),
// tf.einsum("aecd,abcd->acbe", key, query); _masked_softmax expands the
// mask at -3 and the Softmax layer adds (1 - tf.cast(mask)) *
// _large_compatible_negative(f16) = tf.float16.min; then
// tf.einsum("acbe,aecd->abcd", scores, value). B = 2, H = 2, L = 6, D = 40.

// CHECK-LABEL: func.func @tf_keras210_mha_band_part_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158{{[0-9]*}}, causal{{$}}
func.func @tf_keras210_mha_band_part_f16(%q: tensor<2x6x2x40xf16>, %k: tensor<2x6x2x40xf16>,
                                         %v: tensor<2x6x2x40xf16>) -> tensor<2x6x2x40xf16> {
  %c = poot.constant dense<0.158113882> : tensor<f16>
  %qs = poot.mul %q, %c : tensor<2x6x2x40xf16>, tensor<f16>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x40xf16>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x6x2x40xf16>
  %s = poot.matmul %qh, %kh : tensor<2x2x6x40xf16>, tensor<2x2x40x6xf16>
  %band = poot.constant dense<[[[true, false, false, false, false, false], [true, true, false, false, false, false], [true, true, true, false, false, false], [true, true, true, true, false, false], [true, true, true, true, true, false], [true, true, true, true, true, true]]]> : tensor<1x6x6xi1>
  %m4 = poot.reshape %band : tensor<1x6x6xi1> -> tensor<1x1x6x6xi1>
  %mf = poot.convert %m4 : tensor<1x1x6x6xi1> -> tensor<1x1x6x6xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %inv = poot.sub %one, %mf : tensor<f16>, tensor<1x1x6x6xf16>
  %neg = poot.constant dense<-65504.0> : tensor<f16>
  %adder = poot.mul %inv, %neg : tensor<1x1x6x6xf16>, tensor<f16>
  %sm = poot.add %s, %adder : tensor<2x2x6x6xf16>, tensor<1x1x6x6xf16>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf16>
  %d = poot.sub %sm, %mx : tensor<2x2x6x6xf16>, tensor<2x2x6x1xf16>
  %e = poot.exp %d : tensor<2x2x6x6xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf16>
  %p = poot.div %e, %z : tensor<2x2x6x6xf16>, tensor<2x2x6x1xf16>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x40xf16>
  %oh = poot.matmul %p, %vh : tensor<2x2x6x6xf16>, tensor<2x2x6x40xf16>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x40xf16>
  return %o : tensor<2x6x2x40xf16>
}
