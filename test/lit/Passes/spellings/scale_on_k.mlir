// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The scale folded into k before the permute (k * scale, the scalar
// broadcast to k's shape first), a decode step (Lq = 1) with D = 512.

// CHECK-LABEL: func.func @scale_on_k
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x1x512xf32>, %[[K:[^:]+]]: tensor<1x2x8x512xf32>, %[[V:[^:]+]]: tensor<1x2x8x512xf32>
// out = softmax((q . k) * 512^-1/2) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 0.04419417{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @scale_on_k(%q: tensor<1x2x1x512xf32>, %k: tensor<1x2x8x512xf32>,
                      %v: tensor<1x2x8x512xf32>) -> tensor<1x2x1x512xf32> {
  %c = poot.constant dense<0.0441941731> : tensor<f32>
  %cb = poot.broadcast %c {shape = array<i64: 1, 2, 8, 512>} : tensor<f32>
  %ks = poot.mul %k, %cb : tensor<1x2x8x512xf32>, tensor<1x2x8x512xf32>
  %kt = poot.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x512xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x512xf32>, tensor<1x2x512x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x512xf32>
  return %o : tensor<1x2x1x512xf32>
}
