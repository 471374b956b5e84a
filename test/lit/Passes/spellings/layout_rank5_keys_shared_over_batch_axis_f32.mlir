// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Rank-5 scores [B, N, H, L, L] whose keys and values are shared over the
// second axis (one key set for all N rows, broadcast there by the
// matmuls) while the queries are not. B = 1, N = 3, H = 2, L = 4, D = 8.
//
// Not the strongest form yet; the strongest was:
//   poot.attention q', k, v {n_rep = 3 : i64, ...}
//   (the shared axis moved next to the rows as a group: query head
//   h * N + n reads key head h)
// Today (sound, checked against the oracle): declined and run unfused. The
// batch-axis merge does not fire (it would copy the keys N times), and the
// grouped reading takes keys shared over the third axis only.
// CHECK-LABEL: func.func @layout_rank5_keys_shared_over_batch_axis_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: grouped keys or values are not one head per group spread over the group axis{{$}}
func.func @layout_rank5_keys_shared_over_batch_axis_f32(%q: tensor<1x3x2x4x8xf32>, %k: tensor<1x1x2x4x8xf32>,
    %v: tensor<1x1x2x4x8xf32>) -> tensor<1x3x2x4x8xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x1x2x4x8xf32>
  %s = poot.matmul %q, %kt : tensor<1x3x2x4x8xf32>, tensor<1x1x2x8x4xf32>
  %m = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x3x2x4x4xf32>
  %d = poot.sub %s, %m : tensor<1x3x2x4x4xf32>, tensor<1x3x2x4x1xf32>
  %e = poot.exp %d : tensor<1x3x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x3x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x3x2x4x4xf32>, tensor<1x3x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x3x2x4x4xf32>, tensor<1x1x2x4x8xf32>
  return %o : tensor<1x3x2x4x8xf32>
}
