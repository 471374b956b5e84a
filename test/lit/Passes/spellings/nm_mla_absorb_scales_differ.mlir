// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: the absorbed MLA scores with each product scaled on its own,
// q_nope . ckv^T * a + q_pe . k_pe^T * b with a != b (a port that scales
// the rope part by 1/sqrt(r) and the latent part by 1/sqrt(c)). Only a
// sum of the bare products is joined into one product: the fused op takes
// one scale, and these two would have to be pushed into the query parts
// apart. The matcher meets an add of two score chains. Declined; runs
// unfused.
// B = 1, H = 4, q = k = 5, c = 64, r = 16.

// CHECK-LABEL: func.func @nm_mla_absorb_scales_differ
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: an add whose sides both (or neither) come from the scores{{$}}
func.func @nm_mla_absorb_scales_differ(%qn: tensor<1x4x5x64xf32>, %qp: tensor<1x4x5x16xf32>,
                                       %ckv: tensor<1x1x5x64xf32>, %kpe: tensor<1x1x5x16xf32>)
    -> tensor<1x4x5x64xf32> {
  %ckvt = poot.transpose %ckv {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x64xf32>
  %s1 = poot.matmul %qn, %ckvt : tensor<1x4x5x64xf32>, tensor<1x1x64x5xf32>
  %a = poot.constant dense<0.125> : tensor<f32>
  %s1s = poot.mul %s1, %a : tensor<1x4x5x5xf32>, tensor<f32>
  %kpet = poot.transpose %kpe {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s2 = poot.matmul %qp, %kpet : tensor<1x4x5x16xf32>, tensor<1x1x16x5xf32>
  %b = poot.constant dense<0.25> : tensor<f32>
  %s2s = poot.mul %s2, %b : tensor<1x4x5x5xf32>, tensor<f32>
  %s = poot.add %s1s, %s2s : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %s, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %ckv : tensor<1x4x5x5xf32>, tensor<1x1x5x64xf32>
  return %o : tensor<1x4x5x64xf32>
}
