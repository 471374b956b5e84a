// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// An ONNX decode export imported with a static past length (5): the query
// positions are the constant Range [5, 6, 7], the keys [0..7]; the mask is
// Where(keys <= rows, 0, finfo.min). The arange constants read as iotas
// (plus 5), so this is causal at position 5. MHA 2 heads, D = 96, Lq = 3.

// CHECK-LABEL: func.func @causal_onnx_static_past
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x3x96xf32>, %[[K:[^:]+]]: tensor<1x2x8x96xf32>, %[[V:[^:]+]]: tensor<1x2x8x96xf32>
// CHECK: %[[POS:.+]] = poot.constant dense<5> : tensor<i64>
// CHECK-NOT: poot.{{select|compare}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i64>) {causal, n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_onnx_static_past(%q: tensor<1x2x3x96xf32>, %k: tensor<1x2x8x96xf32>,
                                   %vr: tensor<1x2x8x96xf32>) -> tensor<1x2x3x96xf32> {
  %keys = poot.constant dense<[0, 1, 2, 3, 4, 5, 6, 7]> : tensor<8xi64>
  %rows = poot.constant dense<[5, 6, 7]> : tensor<3xi64>
  %r2 = poot.reshape %rows : tensor<3xi64> -> tensor<3x1xi64>
  %vis = poot.compare le, %keys, %r2 : tensor<8xi64>, tensor<3x1xi64>
  %f0 = poot.constant dense<0.0> : tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %bias = poot.select %vis, %f0, %fmin : tensor<3x8xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x96xf32>, tensor<1x2x96x8xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x8xf32>, tensor<f32>
  %sm = poot.add %ss, %bias : tensor<1x2x3x8xf32>, tensor<3x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %p = poot.div %e, %z : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x2x3x8xf32>, tensor<1x2x8x96xf32>
  return %o : tensor<1x2x3x96xf32>
}
