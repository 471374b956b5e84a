// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ONNX, a model converted to f16 with Exp kept in f32 (the f16 converter's
// op block list puts Casts around the blocked op): ReduceMax and Sub in
// f16, Cast to f32, Exp, Cast back to f16, ReduceSum and Div in f16.
// MHA, B = 1, H = 2, Lq = 3, Lk = 8, D = 32.

// CHECK-LABEL: func.func @onnx_f16_cast_exp
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x3x32xf16>, %[[K:[^:]+]]: tensor<1x2x8x32xf16>, %[[V:[^:]+]]: tensor<1x2x8x32xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 0.1767{{[0-9]+}} : f64} : tensor<1x2x3x32xf16>, tensor<1x2x8x32xf16>, tensor<1x2x8x32xf16> -> tensor<1x2x3x32xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @onnx_f16_cast_exp(%q: tensor<1x2x3x32xf16>, %k: tensor<1x2x8x32xf16>,
                             %v: tensor<1x2x8x32xf16>) -> tensor<1x2x3x32xf16> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x32xf16>
  %s = poot.matmul %q, %kt : tensor<1x2x3x32xf16>, tensor<1x2x32x8xf16>
  %c = poot.constant dense<0.1768> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<1x2x3x8xf16>, tensor<f16>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf16>
  %d = poot.sub %ss, %m : tensor<1x2x3x8xf16>, tensor<1x2x3x1xf16>
  %d32 = poot.convert %d : tensor<1x2x3x8xf16> -> tensor<1x2x3x8xf32>
  %e32 = poot.exp %d32 : tensor<1x2x3x8xf32>
  %e = poot.convert %e32 : tensor<1x2x3x8xf32> -> tensor<1x2x3x8xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf16>
  %p = poot.div %e, %z : tensor<1x2x3x8xf16>, tensor<1x2x3x1xf16>
  %o = poot.matmul %p, %v : tensor<1x2x3x8xf16>, tensor<1x2x8x32xf16>
  return %o : tensor<1x2x3x32xf16>
}
