// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Several sequences decoding against one shared prefix cache: keys and
// values of batch 1, queries of batch 3, the matmuls broadcasting the
// batch (numpy rules, as torch.matmul does). GQA 8/2 by repeat_kv's
// reshape/broadcast/reshape, causal from pos (one position for every
// row). The batch rows become query heads (head h of row n is head 3 h + n),
// so the fused op reads each key head once for all 3 x 4 query heads: n_rep
// 12. B = 3 (keys 1), D = 32, Lk = 12.

// CHECK-LABEL: func.func @batch_shared_prefix_gqa_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<3x8x1x32xf32>, %[[K:[^:]+]]: tensor<1x2x12x32xf32>, %[[V:[^:]+]]: tensor<1x2x12x32xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-NOT: poot.broadcast
// CHECK: %[[QT:.+]] = poot.transpose %[[Q]] {perm = array<i64: 1, 0, 2, 3>}
// CHECK: %[[QF:.+]] = poot.reshape %[[QT]] : tensor<8x3x1x32xf32> -> tensor<1x24x1x32xf32>
// CHECK: %[[O:.+]] = poot.attention %[[QF]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 12 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK: %[[OR:.+]] = poot.reshape %[[O]] : tensor<1x24x1x32xf32> -> tensor<8x3x1x32xf32>
// CHECK: %[[R:.+]] = poot.transpose %[[OR]] {perm = array<i64: 1, 0, 2, 3>}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[R]]
func.func @batch_shared_prefix_gqa_decode(%q: tensor<3x8x1x32xf32>, %k: tensor<1x2x12x32xf32>,
                                          %v: tensor<1x2x12x32xf32>,
                                          %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 12>})
    -> tensor<3x8x1x32xf32> {
  %k5 = poot.reshape %k : tensor<1x2x12x32xf32> -> tensor<1x2x1x12x32xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 12, 32>} : tensor<1x2x1x12x32xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x12x32xf32> -> tensor<1x8x12x32xf32>
  %v5 = poot.reshape %v : tensor<1x2x12x32xf32> -> tensor<1x2x1x12x32xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 12, 32>} : tensor<1x2x1x12x32xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x12x32xf32> -> tensor<1x8x12x32xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x12x32xf32>
  %s = poot.matmul %q, %kt : tensor<3x8x1x32xf32>, tensor<1x8x32x12xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<3x8x1x12xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x12xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x12xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<1x1x1x12xi1>, tensor<f32>, tensor<3x8x1x12xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<3x8x1x12xf32>
  %d = poot.sub %sm, %m : tensor<3x8x1x12xf32>, tensor<3x8x1x1xf32>
  %e = poot.exp %d : tensor<3x8x1x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<3x8x1x12xf32>
  %p = poot.div %e, %z : tensor<3x8x1x12xf32>, tensor<3x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<3x8x1x12xf32>, tensor<1x8x12x32xf32>
  return %o : tensor<3x8x1x32xf32>
}
