// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: poot-run %t.mlir --set=lengths=4,6 --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --set=lengths=2,5 --check --ref=%s --quiet %}

// Near miss of the live length: t < lengths[b] on the scores, but nothing
// bounds lengths (no declared range): a length of 0 empties a row, one
// past 6 reads no key more. It stays a tensor mask.
// CHECK-LABEL: func.func @near_miss_length_mask_unproven_lengths_neg_inf_f32
// CHECK-NOT: len(
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(
// CHECK-NOT: len(
func.func @near_miss_length_mask_unproven_lengths_neg_inf_f32(
    %q: tensor<2x2x6x16xf32>, %k: tensor<2x2x6x16xf32>, %v: tensor<2x2x6x16xf32>,
    %lengths: tensor<2xi32> {poot.name = "lengths"}) -> tensor<2x2x6x16xf32> {
  %ar = poot.iota {dim = 1 : i64} : tensor<2x6xi32>
  %len = poot.reshape %lengths : tensor<2xi32> -> tensor<2x1xi32>
  %keep = poot.compare lt, %ar, %len : tensor<2x6xi32>, tensor<2x1xi32>
  %keep4 = poot.reshape %keep : tensor<2x6xi1> -> tensor<2x1x1x6xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %sc : tensor<2x2x6x6xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep4, %s, %ninf : tensor<2x1x1x6xi1>, tensor<2x2x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %sm, %m : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %z : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  return %o : tensor<2x2x6x16xf32>
}
