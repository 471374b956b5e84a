// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Multi-query attention (Falcon-7B style): one key/value head [B, 1, Lk, D]
// broadcast by the batched matmuls themselves. Hq = 8, B = 2, D = 64, Lq = 3.

// CHECK-LABEL: func.func @mqa_matmul_broadcast
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x3x64xf32>, %[[K:[^:]+]]: tensor<2x1x20x64xf32>, %[[V:[^:]+]]: tensor<2x1x20x64xf32>
// every query head reads the one key head
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 8 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @mqa_matmul_broadcast(%q: tensor<2x8x3x64xf32>, %k: tensor<2x1x20x64xf32>,
                                %v: tensor<2x1x20x64xf32>) -> tensor<2x8x3x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x20x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x3x64xf32>, tensor<2x1x64x20xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x3x20xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x8x3x20xf32>
  %d = poot.sub %ss, %m : tensor<2x8x3x20xf32>, tensor<2x8x3x1xf32>
  %e = poot.exp %d : tensor<2x8x3x20xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x3x20xf32>
  %p = poot.div %e, %z : tensor<2x8x3x20xf32>, tensor<2x8x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x8x3x20xf32>, tensor<2x1x20x64xf32>
  return %o : tensor<2x8x3x64xf32>
}
