// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A key cache laid out pre-transposed [B, H, D, Lk] (as some decoders keep
// it for the q . k product): the matmul reads it directly. B = 2, D = 64.

// CHECK-LABEL: func.func @k_pretransposed
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x1x64xf32>, %[[KT:[^:]+]]: tensor<2x4x64x32xf32>, %[[V:[^:]+]]: tensor<2x4x32x64xf32>
// the fused op wants k as [B, H, Lk, D]
// CHECK: %[[K:.+]] = poot.transpose %[[KT]] {perm = array<i64: 0, 1, 3, 2>}
// out = softmax((q . k) / 8) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @k_pretransposed(%q: tensor<2x4x1x64xf32>, %kt: tensor<2x4x64x32xf32>,
                           %v: tensor<2x4x32x64xf32>) -> tensor<2x4x1x64xf32> {
  %s = poot.matmul %q, %kt : tensor<2x4x1x64xf32>, tensor<2x4x64x32xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %c, %s : tensor<f32>, tensor<2x4x1x32xf32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x4x1x32xf32>
  %d = poot.sub %ss, %m : tensor<2x4x1x32xf32>, tensor<2x4x1x1xf32>
  %e = poot.exp %d : tensor<2x4x1x32xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x1x32xf32>
  %p = poot.div %e, %z : tensor<2x4x1x32xf32>, tensor<2x4x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x1x32xf32>, tensor<2x4x32x64xf32>
  return %o : tensor<2x4x1x64xf32>
}
