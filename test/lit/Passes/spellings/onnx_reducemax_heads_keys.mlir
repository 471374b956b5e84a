// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ONNX, a stabiliser over the heads and the keys: ReduceMax(axes=[1, 3],
// keepdims=1) gives one value per batch row and query row, [B, 1, Lq, 1],
// constant along each row of every head. Causal by a constant additive
// tril mask of 0 and -inf. MHA, B = 2, H = 3, L = 4, D = 32.

// CHECK-LABEL: func.func @onnx_reducemax_heads_keys
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x4x32xf32>, %[[K:[^:]+]]: tensor<2x3x4x32xf32>, %[[V:[^:]+]]: tensor<2x3x4x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @onnx_reducemax_heads_keys(%q: tensor<2x3x4x32xf32>, %k: tensor<2x3x4x32xf32>,
                                     %v: tensor<2x3x4x32xf32>) -> tensor<2x3x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x4x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x3x4x32xf32>, tensor<2x3x32x4xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x3x4x4xf32>, tensor<f32>
  %tril = poot.constant dense<[[0.0, 0xFF800000, 0xFF800000, 0xFF800000],
                               [0.0, 0.0, 0xFF800000, 0xFF800000],
                               [0.0, 0.0, 0.0, 0xFF800000],
                               [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %x = poot.add %ss, %tril : tensor<2x3x4x4xf32>, tensor<4x4xf32>
  %mh = poot.reduce_max %x {axis = 1 : i64, keepdim} : tensor<2x3x4x4xf32>
  %m = poot.reduce_max %mh {axis = 3 : i64, keepdim} : tensor<2x1x4x4xf32>
  %d = poot.sub %x, %m : tensor<2x3x4x4xf32>, tensor<2x1x4x1xf32>
  %e = poot.exp %d : tensor<2x3x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x4x4xf32>
  %p = poot.div %e, %z : tensor<2x3x4x4xf32>, tensor<2x3x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x4x4xf32>, tensor<2x3x4x32xf32>
  return %o : tensor<2x3x4x32xf32>
}
