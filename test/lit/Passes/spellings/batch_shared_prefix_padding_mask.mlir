// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keys and values of batch 1 against queries of batch 2, with an additive
// mask of each batch row's own ([B, 1, 1, Lk], e.g. which cached keys a
// row may use). The mask differs by row, so the rows cannot become query
// heads of one batch: the keys and values are broadcast to the query
// batch in front of the fused op. MHA 2 heads, D = 16, Lq = 3, Lk = 7.

// CHECK-LABEL: func.func @batch_shared_prefix_padding_mask
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x3x16xf32>, %[[K:[^:]+]]: tensor<1x2x7x16xf32>, %[[V:[^:]+]]: tensor<1x2x7x16xf32>, %[[M:[^:]+]]: tensor<2x1x1x7xf32>
// CHECK-DAG: %[[KB:.+]] = poot.broadcast %[[K]] {shape = array<i64: 2, 2, 7, 16>}
// CHECK-DAG: %[[VB:.+]] = poot.broadcast %[[V]] {shape = array<i64: 2, 2, 7, 16>}
// CHECK: poot.attention %[[Q]], %[[KB]], %[[VB]] mask(
// CHECK-SAME: n_rep = 1 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
func.func @batch_shared_prefix_padding_mask(%q: tensor<2x2x3x16xf32>, %k: tensor<1x2x7x16xf32>,
                                            %v: tensor<1x2x7x16xf32>, %mask: tensor<2x1x1x7xf32>)
    -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<1x2x16x7xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x3x7xf32>, tensor<f32>
  %sb = poot.add %ss, %mask : tensor<2x2x3x7xf32>, tensor<2x1x1x7xf32>
  %m = poot.reduce_max %sb {axis = 3 : i64, keepdim} : tensor<2x2x3x7xf32>
  %d = poot.sub %sb, %m : tensor<2x2x3x7xf32>, tensor<2x2x3x1xf32>
  %e = poot.exp %d : tensor<2x2x3x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x7xf32>
  %p = poot.div %e, %z : tensor<2x2x3x7xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x7xf32>, tensor<1x2x7x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
