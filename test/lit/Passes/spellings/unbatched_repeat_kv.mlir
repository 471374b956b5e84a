// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Unbatched GQA: q [8, Lq, D], k/v [2, Lk, D] repeated to eight heads by
// repeat_kv without its batch dim (reshape [2, 1, L, D], expand, reshape),
// softmax(q . k^T / sqrt(D)) . v with no mask. It fuses as the batched op
// at B = 1 with n_rep = 4. D = 16, Lq = 5, Lk = 7.

// CHECK-LABEL: func.func @unbatched_repeat_kv
// CHECK-SAME: %[[Q:[^:]+]]: tensor<8x5x16xf32>, %[[K:[^:]+]]: tensor<2x7x16xf32>, %[[V:[^:]+]]: tensor<2x7x16xf32>
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %[[Q]] : tensor<8x5x16xf32> -> tensor<1x8x5x16xf32>
// CHECK-DAG: %[[K4:.+]] = poot.reshape %[[K]] : tensor<2x7x16xf32> -> tensor<1x2x7x16xf32>
// CHECK-DAG: %[[V4:.+]] = poot.reshape %[[V]] : tensor<2x7x16xf32> -> tensor<1x2x7x16xf32>
// out = softmax((q . k) / 4) . v, query head h reads key head h / 4
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[K4]], %[[V4]] {n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<1x8x5x16xf32> -> tensor<8x5x16xf32>
// CHECK: return %[[R]]
func.func @unbatched_repeat_kv(%q: tensor<8x5x16xf32>, %k: tensor<2x7x16xf32>,
                               %v: tensor<2x7x16xf32>) -> tensor<8x5x16xf32> {
  %k4 = poot.reshape %k : tensor<2x7x16xf32> -> tensor<2x1x7x16xf32>
  %kb = poot.broadcast %k4 {shape = array<i64: 2, 4, 7, 16>} : tensor<2x1x7x16xf32>
  %kr = poot.reshape %kb : tensor<2x4x7x16xf32> -> tensor<8x7x16xf32>
  %v4 = poot.reshape %v : tensor<2x7x16xf32> -> tensor<2x1x7x16xf32>
  %vb = poot.broadcast %v4 {shape = array<i64: 2, 4, 7, 16>} : tensor<2x1x7x16xf32>
  %vr = poot.reshape %vb : tensor<2x4x7x16xf32> -> tensor<8x7x16xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 2, 1>} : tensor<8x7x16xf32>
  %s = poot.matmul %q, %kt : tensor<8x5x16xf32>, tensor<8x16x7xf32>
  %c = poot.constant dense<4.0> : tensor<f32>
  %ss = poot.div %s, %c : tensor<8x5x7xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 2 : i64, keepdim} : tensor<8x5x7xf32>
  %d = poot.sub %ss, %m : tensor<8x5x7xf32>, tensor<8x5x1xf32>
  %e = poot.exp %d : tensor<8x5x7xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x5x7xf32>
  %p = poot.div %e, %z : tensor<8x5x7xf32>, tensor<8x5x1xf32>
  %o = poot.matmul %p, %vr : tensor<8x5x7xf32>, tensor<8x7x16xf32>
  return %o : tensor<8x5x16xf32>
}
