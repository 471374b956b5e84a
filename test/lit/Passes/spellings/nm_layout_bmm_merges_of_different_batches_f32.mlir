// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss for taking a bmm on the operands it was merged from: q is
// [B, H] merged into the bmm batch, k is [H, B] merged (the heads outer),
// so bmm row b * H + h of q meets the keys of head b' = (b * H + h) / B.
// The two merges are not of one batch, so the product keeps its merged
// form: it is still an attention over the merged axis (each merged row has
// its own keys), fused with n_rep 1 over B * H rows as the graph pairs
// them, never regrouped. B = 2, H = 3, L = 4, D = 8.
// CHECK-LABEL: func.func @nm_layout_bmm_merges_of_different_batches_f32
// CHECK: poot.attention %{{.*}}, %{{.*}}, %{{.*}} {n_rep = 1 : i64, scale = 1.000000e+00 : f64} : tensor<1x6x4x8xf32>, tensor<1x6x4x8xf32>, tensor<1x6x4x8xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1{{$}}
func.func @nm_layout_bmm_merges_of_different_batches_f32(%q: tensor<2x3x4x8xf32>, %k: tensor<3x2x4x8xf32>,
    %v: tensor<6x4x8xf32>) -> tensor<6x4x8xf32> {
  %q3 = poot.reshape %q : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
  %k3 = poot.reshape %k : tensor<3x2x4x8xf32> -> tensor<6x4x8xf32>
  %kt = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<6x4x8xf32>
  %s = poot.matmul %q3, %kt : tensor<6x4x8xf32>, tensor<6x8x4xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<6x4x4xf32>
  %d = poot.sub %s, %m : tensor<6x4x4xf32>, tensor<6x4x1xf32>
  %e = poot.exp %d : tensor<6x4x4xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<6x4x4xf32>
  %p = poot.div %e, %z : tensor<6x4x4xf32>, tensor<6x4x1xf32>
  %o = poot.matmul %p, %v : tensor<6x4x4xf32>, tensor<6x4x8xf32>
  return %o : tensor<6x4x8xf32>
}
