// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// An exporter's softmax as exp * Reciprocal(ReduceSum) (reciprocal spelled
// 1 / z) with the sum kept without keepdim and re-expanded by a reshape and
// a broadcast. MHA, D = 40, B = 2, Lq = 4.

// CHECK-LABEL: func.func @softmax_reciprocal
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x4x40xf32>, %[[K:[^:]+]]: tensor<2x2x9x40xf32>, %[[V:[^:]+]]: tensor<2x2x9x40xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @softmax_reciprocal(%q: tensor<2x2x4x40xf32>, %k: tensor<2x2x9x40xf32>,
                              %v: tensor<2x2x9x40xf32>) -> tensor<2x2x4x40xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x9x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x40xf32>, tensor<2x2x40x9xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x4x9xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64} : tensor<2x2x4x9xf32>
  %m4 = poot.reshape %m : tensor<2x2x4xf32> -> tensor<2x2x4x1xf32>
  %mb = poot.broadcast %m4 {shape = array<i64: 2, 2, 4, 9>} : tensor<2x2x4x1xf32>
  %d = poot.sub %ss, %mb : tensor<2x2x4x9xf32>, tensor<2x2x4x9xf32>
  %e = poot.exp %d : tensor<2x2x4x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64} : tensor<2x2x4x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %z : tensor<f32>, tensor<2x2x4xf32>
  %r4 = poot.reshape %r : tensor<2x2x4xf32> -> tensor<2x2x4x1xf32>
  %p = poot.mul %e, %r4 : tensor<2x2x4x9xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x9xf32>, tensor<2x2x9x40xf32>
  return %o : tensor<2x2x4x40xf32>
}
