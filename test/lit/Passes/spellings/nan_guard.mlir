// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A NaN guard after the softmax, p = where(isnan(p), 0, p) (spelled
// select(p != p, 0, p)), so rows whose keys are all masked give 0, not NaN.
// The boolean mask [B, 1, Lq, Lk] hides whole rows of the seeded inputs.
// B = 2, H = 2, D = 40, Lq = 8, Lk = 3.

// CHECK-LABEL: func.func @nan_guard
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x8x40xf32>, %[[K:[^:]+]]: tensor<2x2x3x40xf32>, %[[V:[^:]+]]: tensor<2x2x3x40xf32>, %[[KEEP:[^:]+]]: tensor<2x1x8x3xi1>
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(
// CHECK-NOT: poot.{{exp|reduce_max}}
// the guard moves to the output: a NaN row is what sum_t 0 * v[t] gives
// CHECK: %[[NAN:.+]] = poot.compare ne, %[[O]], %[[O]]
// CHECK: %[[G:.+]] = poot.select %[[NAN]], %{{.+}}, %[[O]]
// CHECK: return %[[G]]
func.func @nan_guard(%q: tensor<2x2x8x40xf32>, %k: tensor<2x2x3x40xf32>,
                     %v: tensor<2x2x3x40xf32>, %keep: tensor<2x1x8x3xi1>)
    -> tensor<2x2x8x40xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x3x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x8x40xf32>, tensor<2x2x40x3xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x8x3xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %ss, %ninf : tensor<2x1x8x3xi1>, tensor<2x2x8x3xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x8x3xf32>
  %d = poot.sub %sm, %m : tensor<2x2x8x3xf32>, tensor<2x2x8x1xf32>
  %e = poot.exp %d : tensor<2x2x8x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x8x3xf32>
  %p = poot.div %e, %z : tensor<2x2x8x3xf32>, tensor<2x2x8x1xf32>
  %isnan = poot.compare ne, %p, %p : tensor<2x2x8x3xf32>, tensor<2x2x8x3xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %pg = poot.select %isnan, %zero, %p : tensor<2x2x8x3xi1>, tensor<f32>, tensor<2x2x8x3xf32>
  %o = poot.matmul %pg, %v : tensor<2x2x8x3xf32>, tensor<2x2x3x40xf32>
  return %o : tensor<2x2x8x40xf32>
}
