// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The grouped padding mask [B, 1, G, T, S] that differs per group member
// r (once a near miss): in the rank-4 frame it is one mask per query head
// h = k * G + r, spelled out over the key heads and merged with the group
// axis, and the grouping stays (n_rep 2, keys read once).
// B = 2, T = 3, S = 5, K = 2, G = 2, H = 16.

// CHECK-LABEL: func.func @jax_gqa_padding_mask_per_group_member
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x4x3x5xf32>) {n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, tensor mask{{$}}
func.func @jax_gqa_padding_mask_per_group_member(%q: tensor<2x3x4x16xf32>, %k: tensor<2x5x2x16xf32>,
                                             %v: tensor<2x5x2x16xf32>, %mask: tensor<2x1x2x3x5xi1>)
    -> tensor<2x3x4x16xf32> {
  %q5 = poot.reshape %q : tensor<2x3x4x16xf32> -> tensor<2x3x2x2x16xf32>
  %qt = poot.transpose %q5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<2x3x2x2x16xf32>
  %kt4 = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x5x2x16xf32>
  %kt = poot.reshape %kt4 : tensor<2x2x16x5xf32> -> tensor<2x2x1x16x5xf32>
  %lg = poot.matmul %qt, %kt : tensor<2x2x2x3x16xf32>, tensor<2x2x1x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ls = poot.mul %lg, %c : tensor<2x2x2x3x5xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %pl = poot.select %mask, %ls, %ninf : tensor<2x1x2x3x5xi1>, tensor<2x2x2x3x5xf32>, tensor<f32>
  %m = poot.reduce_max %pl {axis = 4 : i64, keepdim} : tensor<2x2x2x3x5xf32>
  %d = poot.sub %pl, %m : tensor<2x2x2x3x5xf32>, tensor<2x2x2x3x1xf32>
  %e = poot.exp %d : tensor<2x2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<2x2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<2x2x2x3x5xf32>, tensor<2x2x2x3x1xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x16xf32>
  %v5 = poot.reshape %vh : tensor<2x2x5x16xf32> -> tensor<2x2x1x5x16xf32>
  %oh = poot.matmul %p, %v5 : tensor<2x2x2x3x5xf32>, tensor<2x2x1x5x16xf32>
  %ot = poot.transpose %oh {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<2x2x2x3x16xf32>
  %o = poot.reshape %ot : tensor<2x3x2x2x16xf32> -> tensor<2x3x4x16xf32>
  return %o : tensor<2x3x4x16xf32>
}
