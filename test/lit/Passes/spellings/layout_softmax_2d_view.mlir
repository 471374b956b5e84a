// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Older ONNX exports (opset < 13, where Softmax flattens its input to 2-D):
// the scaled, causally masked scores [b, h, q, k] are reshaped to
// [b*h*q, k], the softmax runs over axis 1 there (its reductions without
// keepdim, re-expanded by reshapes), and the probabilities are reshaped
// back to [b, h, q, k] for P . V. Every row of k keys stays one row, so the
// reshape pair moves up to the matmul and cancels. MHA, D = 96, B = 1,
// H = 4, L = 5.

// CHECK-LABEL: func.func @layout_softmax_2d_view
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x5x96xf32>, %[[K:[^:]+]]: tensor<1x4x5x96xf32>, %[[V:[^:]+]]: tensor<1x4x5x96xf32>
// out = softmax((q . k) * 96^-1/2, keys t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @layout_softmax_2d_view(%q: tensor<1x4x5x96xf32>, %k: tensor<1x4x5x96xf32>,
                                  %v: tensor<1x4x5x96xf32>) -> tensor<1x4x5x96xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x5x96xf32>, tensor<1x4x96x5xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x5x5xf32>, tensor<f32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x5x5xi32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x5x5xi32>
  %hid = poot.compare gt, %col, %row : tensor<1x1x5x5xi32>, tensor<1x1x5x5xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<1x1x5x5xi1>, tensor<f32>, tensor<1x4x5x5xf32>
  %s2 = poot.reshape %sm : tensor<1x4x5x5xf32> -> tensor<20x5xf32>
  %m = poot.reduce_max %s2 {axis = 1 : i64} : tensor<20x5xf32>
  %mk = poot.reshape %m : tensor<20xf32> -> tensor<20x1xf32>
  %d = poot.sub %s2, %mk : tensor<20x5xf32>, tensor<20x1xf32>
  %e = poot.exp %d : tensor<20x5xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64} : tensor<20x5xf32>
  %zk = poot.reshape %z : tensor<20xf32> -> tensor<20x1xf32>
  %p2 = poot.div %e, %zk : tensor<20x5xf32>, tensor<20x1xf32>
  %p = poot.reshape %p2 : tensor<20x5xf32> -> tensor<1x4x5x5xf32>
  %o = poot.matmul %p, %v : tensor<1x4x5x5xf32>, tensor<1x4x5x96xf32>
  return %o : tensor<1x4x5x96xf32>
}
