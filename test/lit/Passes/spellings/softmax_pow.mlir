// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The softmax normaliser spelled pow(sum, -1) (what some graph exporters
// emit for 1/x), and the scale as rsqrt(d) computed in the graph.
// GQA 8/2 by repeat_kv, D = 64, Lq = 1, B = 2.

// CHECK-LABEL: func.func @softmax_pow
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x1x64xf32>, %[[K:[^:]+]]: tensor<2x2x16x64xf32>, %[[V:[^:]+]]: tensor<2x2x16x64xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 4 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK-NOT: poot.pow
// CHECK: return %[[O]]
func.func @softmax_pow(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x16x64xf32>,
                       %v: tensor<2x2x16x64xf32>) -> tensor<2x8x1x64xf32> {
  %k5 = poot.reshape %k : tensor<2x2x16x64xf32> -> tensor<2x2x1x16x64xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 16, 64>} : tensor<2x2x1x16x64xf32>
  %kr = poot.reshape %kb : tensor<2x2x4x16x64xf32> -> tensor<2x8x16x64xf32>
  %v5 = poot.reshape %v : tensor<2x2x16x64xf32> -> tensor<2x2x1x16x64xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 16, 64>} : tensor<2x2x1x16x64xf32>
  %vr = poot.reshape %vb : tensor<2x2x4x16x64xf32> -> tensor<2x8x16x64xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x16x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x1x64xf32>, tensor<2x8x64x16xf32>
  %dk = poot.constant dense<64.0> : tensor<f32>
  %c = poot.rsqrt %dk : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x1x16xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %d = poot.sub %ss, %m : tensor<2x8x1x16xf32>, tensor<2x8x1x1xf32>
  %e = poot.exp %d : tensor<2x8x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %neg1 = poot.constant dense<-1.0> : tensor<f32>
  %r = poot.pow %z, %neg1 : tensor<2x8x1x1xf32>, tensor<f32>
  %p = poot.mul %r, %e : tensor<2x8x1x1xf32>, tensor<2x8x1x16xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x1x16xf32>, tensor<2x8x16x64xf32>
  return %o : tensor<2x8x1x64xf32>
}
