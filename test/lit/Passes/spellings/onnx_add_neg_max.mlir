// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ONNX, the max subtraction written as Add(x, Neg(ReduceMax(x))) (as
// graphs rewritten by some ONNX optimisers carry it), and the
// normalisation as Mul(e, Reciprocal(ReduceSum(e))), the reciprocal as
// Div(1, .). MHA, B = 2, H = 2, Lq = 1, Lk = 9, D = 64.

// CHECK-LABEL: func.func @onnx_add_neg_max
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x1x64xf32>, %[[K:[^:]+]]: tensor<2x2x9x64xf32>, %[[V:[^:]+]]: tensor<2x2x9x64xf32>
// CHECK-NOT: poot.{{exp|neg|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|neg|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @onnx_add_neg_max(%q: tensor<2x2x1x64xf32>, %k: tensor<2x2x9x64xf32>,
                            %v: tensor<2x2x9x64xf32>) -> tensor<2x2x1x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x9x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x64xf32>, tensor<2x2x64x9xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x9xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x2x1x9xf32>
  %nm = poot.neg %m : tensor<2x2x1x1xf32>
  %x = poot.add %ss, %nm : tensor<2x2x1x9xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %x : tensor<2x2x1x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %r = poot.div %one, %z : tensor<f32>, tensor<2x2x1x1xf32>
  %p = poot.mul %e, %r : tensor<2x2x1x9xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x9xf32>, tensor<2x2x9x64xf32>
  return %o : tensor<2x2x1x64xf32>
}
