// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keys and values of batch 1 against 3 decoding rows, each at a position
// of its own (pos is [B]): causal from each row's position. The rows see
// different keys, so they cannot become heads of one row: the keys and
// values are broadcast to the query batch, and the fused op keeps the
// per-row positions. MHA 2 heads, D = 16, Lk = 9.

// CHECK-LABEL: func.func @batch_shared_prefix_pos_per_row
// CHECK-SAME: %[[Q:[^:]+]]: tensor<3x2x1x16xf32>, %[[K:[^:]+]]: tensor<1x2x9x16xf32>, %[[V:[^:]+]]: tensor<1x2x9x16xf32>, %[[POS:[^:]+]]: tensor<3xi32>
// CHECK-DAG: %[[KB:.+]] = poot.broadcast %[[K]] {shape = array<i64: 3, 2, 9, 16>}
// CHECK-DAG: %[[VB:.+]] = poot.broadcast %[[V]] {shape = array<i64: 3, 2, 9, 16>}
// CHECK: poot.attention %[[Q]], %[[KB]], %[[VB]] pos(%[[POS]] : tensor<3xi32>) {causal, n_rep = 1 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
func.func @batch_shared_prefix_pos_per_row(%q: tensor<3x2x1x16xf32>, %k: tensor<1x2x9x16xf32>,
                                           %v: tensor<1x2x9x16xf32>,
                                           %pos: tensor<3xi32> {poot.slot = "pos", poot.range = array<i64: 0, 9>})
    -> tensor<3x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x9x16xf32>
  %s = poot.matmul %q, %kt : tensor<3x2x1x16xf32>, tensor<1x2x16x9xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<3x2x1x9xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x9xi32>
  %p4 = poot.reshape %pos : tensor<3xi32> -> tensor<3x1x1x1xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x9xi32>, tensor<3x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<3x1x1x9xi1>, tensor<f32>, tensor<3x2x1x9xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<3x2x1x9xf32>
  %d = poot.sub %sm, %m : tensor<3x2x1x9xf32>, tensor<3x2x1x1xf32>
  %e = poot.exp %d : tensor<3x2x1x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<3x2x1x9xf32>
  %p = poot.div %e, %z : tensor<3x2x1x9xf32>, tensor<3x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<3x2x1x9xf32>, tensor<1x2x9x16xf32>
  return %o : tensor<3x2x1x16xf32>
}
