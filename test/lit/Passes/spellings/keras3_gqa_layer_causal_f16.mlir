// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keras 3.3 keras.layers.GroupedQueryAttention(use_causal_mask=True) on the
// JAX backend, f16: _compute_attention repeats key and value with
// ops.repeat(x, num_repeats, axis=2) (jnp.repeat: broadcast and reshape in
// the [B, S, N, H] layout), query * (1 / sqrt(head_dim)), einsum
// "bquh,bkuh->buqk"; _compute_causal_mask is ops.cumsum over ones along
// -2 and -1 (folded to constant tables at trace time) and greater_equal;
// _masked_softmax expands it at -3 and the Softmax layer adds
// (1 - cast(mask)) * -3e4 (_large_negative_number for f16) before
// ops.softmax; einsum "buqk,bkuh->bquh". B = 1, 6 query heads over 2, D =
// 80, L = 5.

// CHECK-LABEL: func.func @keras3_gqa_layer_causal_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-SAME: n_rep = 3 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.1118{{[0-9]*}}, causal{{$}}
func.func @keras3_gqa_layer_causal_f16(%q: tensor<1x5x6x80xf16>, %k: tensor<1x5x2x80xf16>,
                                       %v: tensor<1x5x2x80xf16>) -> tensor<1x5x6x80xf16> {
  %k5 = poot.reshape %k : tensor<1x5x2x80xf16> -> tensor<1x5x2x1x80xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 5, 2, 3, 80>} : tensor<1x5x2x1x80xf16>
  %kr = poot.reshape %kb : tensor<1x5x2x3x80xf16> -> tensor<1x5x6x80xf16>
  %v5 = poot.reshape %v : tensor<1x5x2x80xf16> -> tensor<1x5x2x1x80xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 5, 2, 3, 80>} : tensor<1x5x2x1x80xf16>
  %vr = poot.reshape %vb : tensor<1x5x2x3x80xf16> -> tensor<1x5x6x80xf16>
  %c = poot.constant dense<0.111803398> : tensor<f16>
  %qs = poot.mul %q, %c : tensor<1x5x6x80xf16>, tensor<f16>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x6x80xf16>
  %kh = poot.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x6x80xf16>
  %s = poot.matmul %qh, %kh : tensor<1x6x5x80xf16>, tensor<1x6x80x5xf16>
  %row = poot.constant dense<[[[1, 1, 1, 1, 1], [2, 2, 2, 2, 2], [3, 3, 3, 3, 3], [4, 4, 4, 4, 4], [5, 5, 5, 5, 5]]]> : tensor<1x5x5xi32>
  %col = poot.constant dense<[[[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]]]> : tensor<1x5x5xi32>
  %cm = poot.compare ge, %row, %col : tensor<1x5x5xi32>, tensor<1x5x5xi32>
  %cm4 = poot.reshape %cm : tensor<1x5x5xi1> -> tensor<1x1x5x5xi1>
  %mf = poot.convert %cm4 : tensor<1x1x5x5xi1> -> tensor<1x1x5x5xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %inv = poot.sub %one, %mf : tensor<f16>, tensor<1x1x5x5xf16>
  %neg = poot.constant dense<-3.0e+04> : tensor<f16>
  %adder = poot.mul %inv, %neg : tensor<1x1x5x5xf16>, tensor<f16>
  %sm = poot.add %s, %adder : tensor<1x6x5x5xf16>, tensor<1x1x5x5xf16>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x6x5x5xf16>
  %d = poot.sub %sm, %mx : tensor<1x6x5x5xf16>, tensor<1x6x5x1xf16>
  %e = poot.exp %d : tensor<1x6x5x5xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x5x5xf16>
  %p = poot.div %e, %z : tensor<1x6x5x5xf16>, tensor<1x6x5x1xf16>
  %vh = poot.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x6x80xf16>
  %oh = poot.matmul %p, %vh : tensor<1x6x5x5xf16>, tensor<1x6x5x80xf16>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x5x80xf16>
  return %o : tensor<1x5x6x80xf16>
}
