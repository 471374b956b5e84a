// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// OpenNMT-tf opennmt/layers/transformer.py, MultiHeadAttention.call as the
// decoder's self-attention in training (teacher forcing) under the
// mixed_float16 policy, with the mask from future_mask(sequence_length,
// maximum_length=T): tf.sequence_mask(sequence_length, maxlen=T) expanded at
// axis 1, and-ed with _lower_triangle_mask = tf.linalg.band_part(ones([B, T,
// T], bool), -1, 0). In the layer: queries = split_heads(linear_queries(x))
// * num_units_per_head ** -0.5 (f16); keys, values split_heads; dot =
// tf.matmul(queries, keys, transpose_b=True); mask = tf.cast(mask, f32),
// expand_dims(mask, 1) for the heads; dot = tf.cast(tf.cast(dot, f32) *
// mask + ((1.0 - mask) * tf.float32.min), f16): on a hidden key this is
// float32.min, which the cast to f16 rounds to -inf; attn = tf.cast(
// tf.nn.softmax(tf.cast(dot, f32)), f16); heads = tf.matmul(attn, values);
// combine_heads. B 2, H 2, T 6, depth per head 16; sequence_length declared
// in [1, 6].
//
// Strongest form: the -inf fill splits into causal and a padding tensor
// mask (t < sequence_length[b]), n_rep 1, scale 1/4.

// CHECK-LABEL: func.func @opennmt_tf_mha_future_mask_band_part_sequence_mask_mul_f32_min_cast_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal
func.func @opennmt_tf_mha_future_mask_band_part_sequence_mask_mul_f32_min_cast_f16(
    %xq: tensor<2x6x32xf16>, %xk: tensor<2x6x32xf16>, %xv: tensor<2x6x32xf16>,
    %sequence_length: tensor<2xi32> {poot.range = array<i64: 1, 7>}) -> tensor<2x6x32xf16> {
  // tf.sequence_mask(sequence_length, maxlen=6), expand_dims(axis=1)
  %t = poot.iota {dim = 1 : i64} : tensor<2x6xi32>
  %len = poot.reshape %sequence_length : tensor<2xi32> -> tensor<2x1xi32>
  %sm2 = poot.compare lt, %t, %len : tensor<2x6xi32>, tensor<2x1xi32>
  %seqm = poot.reshape %sm2 : tensor<2x6xi1> -> tensor<2x1x6xi1>
  // band_part(ones([B, T, T], bool), -1, 0)
  %ones = poot.constant dense<true> : tensor<2x6x6xi1>
  %no = poot.constant dense<false> : tensor<i1>
  %r = poot.iota {dim = 1 : i64} : tensor<2x6x6xi32>
  %c = poot.iota {dim = 2 : i64} : tensor<2x6x6xi32>
  %inband = poot.compare le, %c, %r : tensor<2x6x6xi32>, tensor<2x6x6xi32>
  %lower = poot.select %inband, %ones, %no : tensor<2x6x6xi1>, tensor<2x6x6xi1>, tensor<i1>
  // tf.math.logical_and(mask, sequence_mask)
  %fm = poot.and %lower, %seqm : tensor<2x6x6xi1>, tensor<2x1x6xi1>
  // split_heads; queries *= num_units_per_head ** -0.5
  %q4 = poot.reshape %xq : tensor<2x6x32xf16> -> tensor<2x6x2x16xf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf16>
  %qs0 = poot.constant dense<2.500000e-01> : tensor<f16>
  %qs = poot.mul %q, %qs0 : tensor<2x2x6x16xf16>, tensor<f16>
  %k4 = poot.reshape %xk : tensor<2x6x32xf16> -> tensor<2x6x2x16xf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf16>
  %v4 = poot.reshape %xv : tensor<2x6x32xf16> -> tensor<2x6x2x16xf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf16>
  // dot = tf.matmul(queries, keys, transpose_b=True)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf16>
  %dot = poot.matmul %qs, %kt : tensor<2x2x6x16xf16>, tensor<2x2x16x6xf16>
  // mask = tf.cast(mask, f32); expand_dims(mask, 1)
  %mf = poot.convert %fm : tensor<2x6x6xi1> -> tensor<2x6x6xf32>
  %m4 = poot.reshape %mf : tensor<2x6x6xf32> -> tensor<2x1x6x6xf32>
  // tf.cast(tf.cast(dot, f32) * mask + ((1.0 - mask) * tf.float32.min), f16)
  %dotf = poot.convert %dot : tensor<2x2x6x6xf16> -> tensor<2x2x6x6xf32>
  %dm = poot.mul %dotf, %m4 : tensor<2x2x6x6xf32>, tensor<2x1x6x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %m4 : tensor<f32>, tensor<2x1x6x6xf32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %pen = poot.mul %inv, %fmin : tensor<2x1x6x6xf32>, tensor<f32>
  %sum = poot.add %dm, %pen : tensor<2x2x6x6xf32>, tensor<2x1x6x6xf32>
  %dot2 = poot.convert %sum : tensor<2x2x6x6xf32> -> tensor<2x2x6x6xf16>
  // attn = tf.cast(tf.nn.softmax(tf.cast(dot, f32)), f16)
  %x = poot.convert %dot2 : tensor<2x2x6x6xf16> -> tensor<2x2x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %ph = poot.convert %p : tensor<2x2x6x6xf32> -> tensor<2x2x6x6xf16>
  // heads = tf.matmul(attn, values); combine_heads
  %o = poot.matmul %ph, %v : tensor<2x2x6x6xf16>, tensor<2x2x6x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf16>
  %out = poot.reshape %ot : tensor<2x6x2x16xf16> -> tensor<2x6x32xf16>
  return %out : tensor<2x6x32xf16>
}
