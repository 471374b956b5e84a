// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keras 3 MultiHeadAttention(use_causal_mask=True): query, key, value
// [B, L, H, D] from the EinsumDense projections; query *= 1/sqrt(key_dim);
// scores = einsum("aecd,abcd->acbe", key, query); _compute_causal_mask:
// ones((1, Lq, Lk), int32), row_index = cumsum(axis=-2), col_index =
// cumsum(axis=-1), greater_equal(row_index, col_index) (the cumsums of a
// constant fold to 1-based index tables in an export); expand_dims(-3);
// Softmax layer: adder = (1.0 - cast(mask, f32)) * -1e9 (_large_negative_number);
// scores += adder; softmax(axis=-1); einsum("acbe,aecd->abcd", p, value).
// B = 2, L = 6, H = 2, D = 40.

// CHECK-LABEL: func.func @keras_mha_causal_cumsum_tables
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal
func.func @keras_mha_causal_cumsum_tables(%query: tensor<2x6x2x40xf32>, %key: tensor<2x6x2x40xf32>,
                                          %value: tensor<2x6x2x40xf32>) -> tensor<2x6x2x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %query, %c : tensor<2x6x2x40xf32>, tensor<f32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x40xf32>
  %kh = poot.transpose %key {perm = array<i64: 0, 2, 3, 1>} : tensor<2x6x2x40xf32>
  %s = poot.matmul %qh, %kh : tensor<2x2x6x40xf32>, tensor<2x2x40x6xf32>
  %ri = poot.constant dense<[[[1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [6, 6, 6, 6, 6, 6]]]> : tensor<1x6x6xi32>
  %ci = poot.constant dense<[[[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]]]> : tensor<1x6x6xi32>
  %cm = poot.compare ge, %ri, %ci : tensor<1x6x6xi32>, tensor<1x6x6xi32>
  %cm4 = poot.reshape %cm : tensor<1x6x6xi1> -> tensor<1x1x6x6xi1>
  %cmf = poot.convert %cm4 : tensor<1x1x6x6xi1> -> tensor<1x1x6x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %cmf : tensor<f32>, tensor<1x1x6x6xf32>
  %big = poot.constant dense<-1.0e9> : tensor<f32>
  %adder = poot.mul %inv, %big : tensor<1x1x6x6xf32>, tensor<f32>
  %sm = poot.add %s, %adder : tensor<2x2x6x6xf32>, tensor<1x1x6x6xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %sm, %m : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %z : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %vh = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x40xf32>
  %oh = poot.matmul %p, %vh : tensor<2x2x6x6xf32>, tensor<2x2x6x40xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x40xf32>
  return %o : tensor<2x6x2x40xf32>
}
