// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: the absorbed MLA sum where the rope product has one head,
// q_pe [B, 1, q, r] . k_pe^T giving [B, 1, q, k], broadcast over the heads
// by the add (a port that keeps one rope query for all heads). The two
// products are over different heads: only products of the sum's own shape
// are joined (a broadcast in the add is not taken apart into per-head
// rope queries), so the matcher meets an add of two score chains.
// Declined; runs unfused. B = 1, H = 4, q = k = 5.

// CHECK-LABEL: func.func @nm_mla_absorb_rope_score_shared_heads
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: an add whose sides both (or neither) come from the scores{{$}}
func.func @nm_mla_absorb_rope_score_shared_heads(%qn: tensor<1x4x5x64xf32>, %qp: tensor<1x1x5x16xf32>,
                                                 %ckv: tensor<1x1x5x64xf32>, %kpe: tensor<1x1x5x16xf32>)
    -> tensor<1x4x5x64xf32> {
  %ckvt = poot.transpose %ckv {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x64xf32>
  %s1 = poot.matmul %qn, %ckvt : tensor<1x4x5x64xf32>, tensor<1x1x64x5xf32>
  %kpet = poot.transpose %kpe {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s2 = poot.matmul %qp, %kpet : tensor<1x1x5x16xf32>, tensor<1x1x16x5xf32>
  %s = poot.add %s1, %s2 : tensor<1x4x5x5xf32>, tensor<1x1x5x5xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x5x5xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %ss, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %ckv : tensor<1x4x5x5xf32>, tensor<1x1x5x64xf32>
  return %o : tensor<1x4x5x64xf32>
}
