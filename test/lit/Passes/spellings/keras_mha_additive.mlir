// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keras MultiHeadAttention on [B, L, H, D]: query * 1/sqrt(d) first, the
// scores as einsum('aecd,abcd->acbe', key, query), and the Softmax layer's
// mask as an additive (1 - float(mask)) * -1e9 computed in the graph (a
// finite additive mask stays a tensor). D = 40, B = 2, Lq = 3.

// CHECK-LABEL: func.func @keras_mha_additive
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x4x40xf32>, %[[K:[^:]+]]: tensor<2x7x4x40xf32>, %[[V:[^:]+]]: tensor<2x7x4x40xf32>, %[[AM:[^:]+]]: tensor<2x1x3x7xi1>
// CHECK-DAG: %[[QH:.+]] = poot.transpose %[[Q]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[KH:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[VH:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QH]], %[[KH]], %[[VH]] mask(%{{.+}} : tensor<2x1x3x7xf32>) {n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
func.func @keras_mha_additive(%q: tensor<2x3x4x40xf32>, %k: tensor<2x7x4x40xf32>,
                              %v: tensor<2x7x4x40xf32>, %am: tensor<2x1x3x7xi1>)
    -> tensor<2x3x4x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<2x3x4x40xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x7x4x40xf32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x4x40xf32>
  %s = poot.matmul %qh, %kt : tensor<2x4x3x40xf32>, tensor<2x4x40x7xf32>
  %amf = poot.convert %am : tensor<2x1x3x7xi1> -> tensor<2x1x3x7xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %amf : tensor<f32>, tensor<2x1x3x7xf32>
  %big = poot.constant dense<-1.0e+09> : tensor<f32>
  %adder = poot.mul %inv, %big : tensor<2x1x3x7xf32>, tensor<f32>
  %sm = poot.add %s, %adder : tensor<2x4x3x7xf32>, tensor<2x1x3x7xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x4x3x7xf32>
  %d = poot.sub %sm, %m : tensor<2x4x3x7xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x7xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x4x3x7xf32>
  %p = poot.div %e, %z : tensor<2x4x3x7xf32>, tensor<2x4x3x1xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x4x40xf32>
  %oh = poot.matmul %p, %vh : tensor<2x4x3x7xf32>, tensor<2x4x7x40xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x3x40xf32>
  return %o : tensor<2x3x4x40xf32>
}
