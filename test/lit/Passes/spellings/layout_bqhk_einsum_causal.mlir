// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Scores kept in the einsum layout [b, q, h, k] ('bqhd,bkhd->bqhk', as
// TF/Keras einsum layers write it): the matmul's [b, h, q, k] is permuted to
// [b, q, h, k], scaled, masked causally by iotas laid out [1, q, 1, k], the
// softmax runs over the last axis, and the probabilities are permuted back
// to [b, h, q, k] for P . V. Moved up to the matmul, both permutes compose
// to nothing. MHA, D = 40, B = 2, L = 6 (prefill).

// CHECK-LABEL: func.func @layout_bqhk_einsum_causal
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x6x4x40xf32>, %[[K:[^:]+]]: tensor<2x6x4x40xf32>, %[[V:[^:]+]]: tensor<2x6x4x40xf32>
// CHECK-DAG: %[[QH:.+]] = poot.transpose %[[Q]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[KH:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[VH:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>}
// out = softmax((q . k) * 40^-1/2, keys t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QH]], %[[KH]], %[[VH]] {causal, n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
func.func @layout_bqhk_einsum_causal(%q: tensor<2x6x4x40xf32>, %k: tensor<2x6x4x40xf32>,
                                     %v: tensor<2x6x4x40xf32>) -> tensor<2x6x4x40xf32> {
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x40xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x6x4x40xf32>
  %s = poot.matmul %qh, %kt : tensor<2x4x6x40xf32>, tensor<2x4x40x6xf32>
  %sq = poot.transpose %s {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x6xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %sq, %c : tensor<2x6x4x6xf32>, tensor<f32>
  %row = poot.iota {dim = 1 : i64} : tensor<1x6x1x6xi32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x6x1x6xi32>
  %keep = poot.compare ge, %row, %col : tensor<1x6x1x6xi32>, tensor<1x6x1x6xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %ss, %ninf : tensor<1x6x1x6xi1>, tensor<2x6x4x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x6x4x6xf32>
  %d = poot.sub %sm, %m : tensor<2x6x4x6xf32>, tensor<2x6x4x1xf32>
  %e = poot.exp %d : tensor<2x6x4x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x6x4x6xf32>
  %p = poot.div %e, %z : tensor<2x6x4x6xf32>, tensor<2x6x4x1xf32>
  %ph = poot.transpose %p {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x6xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x40xf32>
  %oh = poot.matmul %ph, %vh : tensor<2x4x6x6xf32>, tensor<2x4x6x40xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x40xf32>
  return %o : tensor<2x6x4x40xf32>
}
