// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// fairseq's MultiheadAttention (and ONNX graphs exported from it): heads in
// the batch, q pre-scaled, bmm(q, k^T) [b*h, q, k]; the key padding mask is
// applied on a [b, h, q, k] view (masked_fill(-inf) by a [b, 1, 1, k]
// condition), the scores are viewed back to [b*h, q, k] and the softmax runs
// there, then bmm with v. The view back sits between the mask and the
// softmax. MHA, B = 2, H = 3, Lq = 4, Lk = 6, D = 40.

// CHECK-LABEL: func.func @layout_bmm_fairseq_padding
// CHECK-SAME: %[[Q:[^:]+]]: tensor<6x4x40xf32>, %[[K:[^:]+]]: tensor<6x6x40xf32>, %[[V:[^:]+]]: tensor<6x6x40xf32>, %[[PAD:[^:]+]]: tensor<2x1x1x6xi1>
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %[[Q]] : tensor<6x4x40xf32> -> tensor<2x3x4x40xf32>
// CHECK-DAG: %[[K4:.+]] = poot.reshape %[[K]] : tensor<6x6x40xf32> -> tensor<2x3x6x40xf32>
// CHECK-DAG: %[[V4:.+]] = poot.reshape %[[V]] : tensor<6x6x40xf32> -> tensor<2x3x6x40xf32>
// CHECK-DAG: %[[F:.+]] = poot.select %[[PAD]], %{{.+}}, %{{.+}} : tensor<2x1x1x6xi1>
// CHECK-DAG: %[[M:.+]] = poot.broadcast %[[F]] {shape = array<i64: 2, 1, 4, 6>}
// out = softmax((q . k) * 40^-1/2, padded keys hidden) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[K4]], %[[V4]] mask(%[[M]] : tensor<2x1x4x6xf32>) {n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<2x3x4x40xf32> -> tensor<6x4x40xf32>
// CHECK: return %[[R]]
func.func @layout_bmm_fairseq_padding(%q: tensor<6x4x40xf32>, %k: tensor<6x6x40xf32>,
                                      %v: tensor<6x6x40xf32>, %pad: tensor<2x1x1x6xi1>)
    -> tensor<6x4x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<6x4x40xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<6x6x40xf32>
  %s = poot.matmul %qs, %kt : tensor<6x4x40xf32>, tensor<6x40x6xf32>
  %s4 = poot.reshape %s : tensor<6x4x6xf32> -> tensor<2x3x4x6xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm4 = poot.select %pad, %ninf, %s4 : tensor<2x1x1x6xi1>, tensor<f32>, tensor<2x3x4x6xf32>
  %sm = poot.reshape %sm4 : tensor<2x3x4x6xf32> -> tensor<6x4x6xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<6x4x6xf32>
  %d = poot.sub %sm, %m : tensor<6x4x6xf32>, tensor<6x4x1xf32>
  %e = poot.exp %d : tensor<6x4x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<6x4x6xf32>
  %p = poot.div %e, %z : tensor<6x4x6xf32>, tensor<6x4x1xf32>
  %o = poot.matmul %p, %v : tensor<6x4x6xf32>, tensor<6x6x40xf32>
  return %o : tensor<6x4x40xf32>
}
