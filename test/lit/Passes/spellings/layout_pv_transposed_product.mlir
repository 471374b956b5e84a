// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// P . V written as (V^T . P^T)^T (einsum('bhkd,bhqk->bhdq') then a permute
// back, as some TF graphs and hand-written kernels do): the transposed
// product is the product of the transposes swapped, so the outer permute
// moves into the matmul and P^T^T cancels. An additive mask [1, 1, q, k]
// and a scale on k. MHA, D = 40, B = 2, H = 3, Lq = 4, Lk = 7.

// CHECK-LABEL: func.func @layout_pv_transposed_product
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x3x4x40xf32>, %[[K:[^:]+]]: tensor<2x3x7x40xf32>, %[[V:[^:]+]]: tensor<2x3x7x40xf32>, %[[M:[^:]+]]: tensor<1x1x4x7xf32>
// out = softmax((q . k) * 40^-1/2 + mask) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x1x4x7xf32>) {n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @layout_pv_transposed_product(%q: tensor<2x3x4x40xf32>, %k: tensor<2x3x7x40xf32>,
                                        %v: tensor<2x3x7x40xf32>, %mask: tensor<1x1x4x7xf32>)
    -> tensor<2x3x4x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ks = poot.mul %k, %c : tensor<2x3x7x40xf32>, tensor<f32>
  %kt = poot.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x7x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x3x4x40xf32>, tensor<2x3x40x7xf32>
  %sm = poot.add %s, %mask : tensor<2x3x4x7xf32>, tensor<1x1x4x7xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %d = poot.sub %sm, %m : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %e = poot.exp %d : tensor<2x3x4x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x4x7xf32>
  %p = poot.div %e, %z : tensor<2x3x4x7xf32>, tensor<2x3x4x1xf32>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x4x7xf32>
  %vt = poot.transpose %v {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x7x40xf32>
  %ot = poot.matmul %vt, %pt : tensor<2x3x40x7xf32>, tensor<2x3x7x4xf32>
  %o = poot.transpose %ot {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x40x4xf32>
  return %o : tensor<2x3x4x40xf32>
}
