// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --set=head_lengths=2,8,5 --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --set=head_lengths=1,3,7 --check --ref=%s --quiet %}

// Near miss of the live length: t < lengths[h] varies over the heads, not
// the batch rows (one length per head, as a head-pruned or per-head
// budget might spell), so it is no live length [B]: it stays a tensor
// mask. B = 2, heads = 3, L = 8.
// CHECK-LABEL: func.func @near_miss_length_mask_per_head_lengths_not_batch_neg_inf_f32
// CHECK-NOT: len(
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(
// CHECK-NOT: len(
func.func @near_miss_length_mask_per_head_lengths_not_batch_neg_inf_f32(
    %q: tensor<2x3x8x16xf32>, %k: tensor<2x3x8x16xf32>, %v: tensor<2x3x8x16xf32>,
    %head_lengths: tensor<3xi32> {poot.name = "head_lengths", poot.range = array<i64: 1, 9>}) -> tensor<2x3x8x16xf32> {
  %ar = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %len = poot.reshape %head_lengths : tensor<3xi32> -> tensor<1x3x1x1xi32>
  %keep = poot.compare lt, %ar, %len : tensor<1x1x1x8xi32>, tensor<1x3x1x1xi32>
  %keep2 = poot.broadcast %keep {shape = array<i64: 2, 3, 1, 8>} : tensor<1x3x1x8xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x8x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x3x8x16xf32>, tensor<2x3x16x8xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %sc : tensor<2x3x8x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep2, %s, %ninf : tensor<2x3x1x8xi1>, tensor<2x3x8x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x3x8x8xf32>
  %d = poot.sub %sm, %m : tensor<2x3x8x8xf32>, tensor<2x3x8x1xf32>
  %e = poot.exp %d : tensor<2x3x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x8x8xf32>
  %p = poot.div %e, %z : tensor<2x3x8x8xf32>, tensor<2x3x8x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x8x8xf32>, tensor<2x3x8x16xf32>
  return %o : tensor<2x3x8x16xf32>
}
