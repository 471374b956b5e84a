// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch SDPA math path (_scaled_dot_product_attention_math): the scale is
// split as sqrt(scale) on q and on k^T, q * sf @ (k^T * sf). MHA, D = 40,
// Lq = 5, Lk = 12.

// CHECK-LABEL: func.func @sdpa_math_sqrt_scale
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x5x40xf32>, %[[K:[^:]+]]: tensor<1x4x12x40xf32>, %[[V:[^:]+]]: tensor<1x4x12x40xf32>
// out = softmax((q . k) * sqrt(40^-1/2)^2) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @sdpa_math_sqrt_scale(%q: tensor<1x4x5x40xf32>, %k: tensor<1x4x12x40xf32>,
                                %v: tensor<1x4x12x40xf32>) -> tensor<1x4x5x40xf32> {
  %sf = poot.constant dense<0.397635036> : tensor<f32>
  %qs = poot.mul %q, %sf : tensor<1x4x5x40xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x12x40xf32>
  %kts = poot.mul %kt, %sf : tensor<1x4x40x12xf32>, tensor<f32>
  %s = poot.matmul %qs, %kts : tensor<1x4x5x40xf32>, tensor<1x4x40x12xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x5x12xf32>
  %d = poot.sub %s, %m : tensor<1x4x5x12xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x12xf32>
  %p = poot.div %e, %z : tensor<1x4x5x12xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x5x12xf32>, tensor<1x4x12x40xf32>
  return %o : tensor<1x4x5x40xf32>
}
