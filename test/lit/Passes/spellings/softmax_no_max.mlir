// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A softmax written without the max subtraction, exp(s) / sum(exp(s)) (the
// same function; the fused op subtracts the max for range). B = 3, MHA,
// D = 96, Lq = 2.

// CHECK-LABEL: func.func @softmax_no_max
// CHECK-SAME: %[[Q:[^:]+]]: tensor<3x2x2x96xf32>, %[[K:[^:]+]]: tensor<3x2x7x96xf32>, %[[V:[^:]+]]: tensor<3x2x7x96xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @softmax_no_max(%q: tensor<3x2x2x96xf32>, %k: tensor<3x2x7x96xf32>,
                          %v: tensor<3x2x7x96xf32>) -> tensor<3x2x2x96xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<3x2x7x96xf32>
  %s = poot.matmul %q, %kt : tensor<3x2x2x96xf32>, tensor<3x2x96x7xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<3x2x2x7xf32>, tensor<f32>
  %e = poot.exp %ss : tensor<3x2x2x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<3x2x2x7xf32>
  %p = poot.div %e, %z : tensor<3x2x2x7xf32>, tensor<3x2x2x1xf32>
  %o = poot.matmul %p, %v : tensor<3x2x2x7xf32>, tensor<3x2x7x96xf32>
  return %o : tensor<3x2x2x96xf32>
}
