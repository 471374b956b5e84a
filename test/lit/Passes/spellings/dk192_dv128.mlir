// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Key and value of different widths (DeepSeek-V2 after the MLA up-projection:
// Dk = 192 = 128 + 64 rope channels, Dv = 128), scale (1/sqrt(192)) on the
// scores, a float additive mask [1, 1, Lq, Lk]. B = 2, H = 4, Lq = 3.

// CHECK-LABEL: func.func @dk192_dv128
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x3x192xf32>, %[[K:[^:]+]]: tensor<2x4x11x192xf32>, %[[V:[^:]+]]: tensor<2x4x11x128xf32>, %[[M:[^:]+]]: tensor<1x1x3x11xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x1x3x11xf32>) {n_rep = 1 : i64, scale = 0.0721687{{[0-9]+}} : f64} : tensor<2x4x3x192xf32>, tensor<2x4x11x192xf32>, tensor<2x4x11x128xf32> -> tensor<2x4x3x128xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @dk192_dv128(%q: tensor<2x4x3x192xf32>, %k: tensor<2x4x11x192xf32>,
                       %v: tensor<2x4x11x128xf32>, %mask: tensor<1x1x3x11xf32>)
    -> tensor<2x4x3x128xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x11x192xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x3x192xf32>, tensor<2x4x192x11xf32>
  %c = poot.constant dense<0.0721687824> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x4x3x11xf32>, tensor<f32>
  %sm = poot.add %mask, %ss : tensor<1x1x3x11xf32>, tensor<2x4x3x11xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x3x11xf32>
  %d = poot.sub %sm, %m : tensor<2x4x3x11xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x11xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x11xf32>
  %p = poot.div %e, %z : tensor<2x4x3x11xf32>, tensor<2x4x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x3x11xf32>, tensor<2x4x11x128xf32>
  return %o : tensor<2x4x3x128xf32>
}
