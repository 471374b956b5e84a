// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// An ONNX export that writes the softmax as Exp(LogSoftmax(x)), LogSoftmax
// expanded by its opset-13 function body: ReduceMax(keepdims=1), Sub, Exp,
// ReduceSum(keepdims=1), Log, Sub. The scores are Div(q.k, sqrt(d)) plus a
// float padding bias [B, 1, 1, Lk] (kept as a tensor mask).
// MHA, B = 2, H = 3, Lq = 4, Lk = 7, D = 32.

// CHECK-LABEL: func.func @onnx_logsoftmax_exp
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x4x32xf32>, %[[K:[^:]+]]: tensor<2x3x7x32xf32>, %[[V:[^:]+]]: tensor<2x3x7x32xf32>, %[[B:[^:]+]]: tensor<2x1x1x7xf32>
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%{{.+}} : tensor<2x1x4x7xf32>) {n_rep = 1 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @onnx_logsoftmax_exp(%q: tensor<2x3x4x32xf32>, %k: tensor<2x3x7x32xf32>,
                               %v: tensor<2x3x7x32xf32>, %bias: tensor<2x1x1x7xf32>)
    -> tensor<2x3x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x7x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x3x4x32xf32>, tensor<2x3x32x7xf32>
  %sq = poot.constant dense<5.65685415> : tensor<f32>
  %ss = poot.div %s, %sq : tensor<2x3x4x7xf32>, tensor<f32>
  %x = poot.add %ss, %bias : tensor<2x3x4x7xf32>, tensor<2x1x1x7xf32>
  %rmax = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %xsub = poot.sub %x, %rmax : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %xexp = poot.exp %xsub : tensor<2x3x4x7xf32>
  %rsum = poot.reduce_sum %xexp {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %xlog = poot.log %rsum : tensor<2x3x4x1xf32>
  %y = poot.sub %xsub, %xlog : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %p = poot.exp %y : tensor<2x3x4x7xf32>
  %o = poot.matmul %p, %v : tensor<2x3x4x7xf32>, tensor<2x3x7x32xf32>
  return %o : tensor<2x3x4x32xf32>
}
