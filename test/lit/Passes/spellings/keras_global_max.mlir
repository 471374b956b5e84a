// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keras/TF, a stable softmax whose stabiliser is one max per head:
// e = tf.exp(x - tf.reduce_max(x, axis=[-2, -1], keepdims=True)), then
// e / tf.reduce_sum(e, -1, keepdims=True). The max over the query rows and
// the keys is broadcast constant along each row, and the softmax does not
// see a per-row constant. The scores carry a boolean padding mask
// (tf.where(mask, x, -inf)). MHA, B = 2, H = 2, Lq = 4, Lk = 8, D = 32.

// CHECK-LABEL: func.func @keras_global_max
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x4x32xf32>, %[[K:[^:]+]]: tensor<2x2x8x32xf32>, %[[V:[^:]+]]: tensor<2x2x8x32xf32>, %[[KEEP:[^:]+]]: tensor<2x1x1x8xi1>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%{{.+}} : tensor<2x1x4x8xf32>) {n_rep = 1 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @keras_global_max(%q: tensor<2x2x4x32xf32>, %k: tensor<2x2x8x32xf32>,
                            %v: tensor<2x2x8x32xf32>, %keep: tensor<2x1x1x8xi1>)
    -> tensor<2x2x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x32xf32>, tensor<2x2x32x8xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x4x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x4x8xf32>, tensor<f32>
  %m1 = poot.reduce_max %x {axis = -2 : i64, keepdim} : tensor<2x2x4x8xf32>
  %m = poot.reduce_max %m1 {axis = -1 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %x, %m : tensor<2x2x4x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x4x8xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x2x4x8xf32>
  %p = poot.div %e, %z : tensor<2x2x4x8xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x8xf32>, tensor<2x2x8x32xf32>
  return %o : tensor<2x2x4x32xf32>
}
