// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A bf16 model that runs its attention core in f32: q, k and v are upcast,
// everything up to p @ v is f32, and only the output is cast back to bf16.
// The fused op must keep the f32 output; it takes the upcast operands.
// GQA 4/2 by repeat_kv, D = 40, B = 2, Lq = 3.

// CHECK-LABEL: func.func @bf16_upcast_all
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x3x40xbf16>, %[[K:[^:]+]]: tensor<2x2x8x40xbf16>, %[[V:[^:]+]]: tensor<2x2x8x40xbf16>
// CHECK-DAG: %[[Q32:.+]] = poot.convert %[[Q]] : tensor<2x4x3x40xbf16> -> tensor<2x4x3x40xf32>
// CHECK-DAG: %[[K32:.+]] = poot.convert %[[K]] : tensor<2x2x8x40xbf16> -> tensor<2x2x8x40xf32>
// CHECK-DAG: %[[V32:.+]] = poot.convert %[[V]] : tensor<2x2x8x40xbf16> -> tensor<2x2x8x40xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q32]], %[[K32]], %[[V32]] {n_rep = 2 : i64, scale = 0.158113{{[0-9]+}} : f64} : tensor<2x4x3x40xf32>, tensor<2x2x8x40xf32>, tensor<2x2x8x40xf32> -> tensor<2x4x3x40xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[OUT:.+]] = poot.convert %[[O]] : tensor<2x4x3x40xf32> -> tensor<2x4x3x40xbf16>
// CHECK: return %[[OUT]]
func.func @bf16_upcast_all(%q: tensor<2x4x3x40xbf16>, %k: tensor<2x2x8x40xbf16>,
                           %v: tensor<2x2x8x40xbf16>) -> tensor<2x4x3x40xbf16> {
  %q32 = poot.convert %q : tensor<2x4x3x40xbf16> -> tensor<2x4x3x40xf32>
  %k32 = poot.convert %k : tensor<2x2x8x40xbf16> -> tensor<2x2x8x40xf32>
  %v32 = poot.convert %v : tensor<2x2x8x40xbf16> -> tensor<2x2x8x40xf32>
  %k5 = poot.reshape %k32 : tensor<2x2x8x40xf32> -> tensor<2x2x1x8x40xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 2, 8, 40>} : tensor<2x2x1x8x40xf32>
  %kr = poot.reshape %kb : tensor<2x2x2x8x40xf32> -> tensor<2x4x8x40xf32>
  %v5 = poot.reshape %v32 : tensor<2x2x8x40xf32> -> tensor<2x2x1x8x40xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 2, 8, 40>} : tensor<2x2x1x8x40xf32>
  %vr = poot.reshape %vb : tensor<2x2x2x8x40xf32> -> tensor<2x4x8x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x8x40xf32>
  %s = poot.matmul %q32, %kt : tensor<2x4x3x40xf32>, tensor<2x4x40x8xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x4x3x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x4x3x8xf32>
  %d = poot.sub %ss, %m : tensor<2x4x3x8xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x8xf32>
  %p = poot.div %e, %z : tensor<2x4x3x8xf32>, tensor<2x4x3x1xf32>
  %o32 = poot.matmul %p, %vr : tensor<2x4x3x8xf32>, tensor<2x4x8x40xf32>
  %o = poot.convert %o32 : tensor<2x4x3x40xf32> -> tensor<2x4x3x40xbf16>
  return %o : tensor<2x4x3x40xbf16>
}
