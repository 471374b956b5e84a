// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Rank-5 scores [B, N, H, L, L] with a plain extra batch axis N (an MSA-row
// style attention), two additive masks: a key-padding bias per batch row
// [B, 1, 1, 1, L], which holds the merged (B, N) group only in part, and a
// per-head bias shared by every row [1, 1, H, L, L]; then a third, a
// per-(B, N) key bias [B, N, 1, 1, L]. Merging (B, N) into one axis
// broadcasts the first bias over N before the view (each merged row keeps
// its own batch row's bias); the second stays shared. The three add into
// one tensor mask over the merged batch. B = 2, N = 3, H = 2, L = 5, D = 16.
// CHECK-LABEL: func.func @layout_rank5_batch_mask_held_in_part_f32
// CHECK: poot.attention %{{.*}}, %{{.*}}, %{{.*}} mask(%{{.*}} : tensor<6x2x5x5xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<6x2x5x16xf32>, tensor<6x2x5x16xf32>, tensor<6x2x5x16xf32> -> tensor<6x2x5x16xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @layout_rank5_batch_mask_held_in_part_f32(%q: tensor<2x3x2x5x16xf32>, %k: tensor<2x3x2x5x16xf32>,
    %v: tensor<2x3x2x5x16xf32>, %pad: tensor<2x1x1x1x5xf32>, %hb: tensor<1x1x2x5x5xf32>,
    %rb: tensor<2x3x1x1x5xf32>) -> tensor<2x3x2x5x16xf32> {
  %c = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<2x3x2x5x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<2x3x2x5x16xf32>
  %s = poot.matmul %qs, %kt : tensor<2x3x2x5x16xf32>, tensor<2x3x2x16x5xf32>
  %s1 = poot.add %s, %pad : tensor<2x3x2x5x5xf32>, tensor<2x1x1x1x5xf32>
  %s2 = poot.add %s1, %hb : tensor<2x3x2x5x5xf32>, tensor<1x1x2x5x5xf32>
  %s3 = poot.add %s2, %rb : tensor<2x3x2x5x5xf32>, tensor<2x3x1x1x5xf32>
  %m = poot.reduce_max %s3 {axis = 4 : i64, keepdim} : tensor<2x3x2x5x5xf32>
  %d = poot.sub %s3, %m : tensor<2x3x2x5x5xf32>, tensor<2x3x2x5x1xf32>
  %e = poot.exp %d : tensor<2x3x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<2x3x2x5x5xf32>
  %p = poot.div %e, %z : tensor<2x3x2x5x5xf32>, tensor<2x3x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x2x5x5xf32>, tensor<2x3x2x5x16xf32>
  return %o : tensor<2x3x2x5x16xf32>
}
