// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Scores laid out keys-first: einsum('bhkd,bhqd->bhkq') as k @ q^T, the
// scale, the softmax over axis 2 (the key axis of that layout), then
// einsum('bhkq,bhkd->bhqd') as p^T @ v. MHA, D = 96, B = 2, Lq = 3.

// CHECK-LABEL: func.func @softmax_transposed_axis
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x3x96xf32>, %[[K:[^:]+]]: tensor<2x2x10x96xf32>, %[[V:[^:]+]]: tensor<2x2x10x96xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @softmax_transposed_axis(%q: tensor<2x2x3x96xf32>, %k: tensor<2x2x10x96xf32>,
                                   %v: tensor<2x2x10x96xf32>) -> tensor<2x2x3x96xf32> {
  %qt = poot.transpose %q {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x3x96xf32>
  %s = poot.matmul %k, %qt : tensor<2x2x10x96xf32>, tensor<2x2x96x3xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x10x3xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 2 : i64, keepdim} : tensor<2x2x10x3xf32>
  %d = poot.sub %ss, %m : tensor<2x2x10x3xf32>, tensor<2x2x1x3xf32>
  %e = poot.exp %d : tensor<2x2x10x3xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x2x10x3xf32>
  %p = poot.div %e, %z : tensor<2x2x10x3xf32>, tensor<2x2x1x3xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x10x3xf32>
  %o = poot.matmul %pt, %v : tensor<2x2x3x10xf32>, tensor<2x2x10x96xf32>
  return %o : tensor<2x2x3x96xf32>
}
