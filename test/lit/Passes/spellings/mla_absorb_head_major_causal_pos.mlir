// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// MLA with the up-projection absorbed, written head-major (the naive
// absorbed reference of MLA serving kernels, e.g. vLLM's MLA backend
// checked against torch): q_nope already multiplied by W_UK into the
// latent width [B, H, q, c], the latent cache ckv [B, 1, k, c] and the
// rope key k_pe [B, 1, k, r] shared by every head;
// attn = (q_nope @ ckv.transpose(-1, -2) + q_pe @ k_pe.transpose(-1, -2))
//        * scale; masked_fill(t > pos + i, -inf) for a chunk at pos;
// softmax(-1); out = attn @ ckv. B = 2, H = 4, q = 3, k = 10, c = 64,
// r = 32, scale 1/sqrt(192) (the unabsorbed head width 128 + 64).

// CHECK-LABEL: func.func @mla_absorb_head_major_causal_pos
// CHECK-SAME: %[[QN:[^:]+]]: tensor<2x4x3x64xf32>, %[[QP:[^:]+]]: tensor<2x4x3x32xf32>, %[[CKV:[^:]+]]: tensor<2x1x10x64xf32>, %[[KPE:[^:]+]]: tensor<2x1x10x32xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[Q:.+]] = poot.concat %[[QN]], %[[QP]] {axis = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[CKV]], %[[CKV]] k_shared(%[[KPE]] : tensor<2x1x10x32xf32>) pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.0721687{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: split attention, n_rep 4, scale 0.0721688, causal from pos{{$}}
func.func @mla_absorb_head_major_causal_pos(%qn: tensor<2x4x3x64xf32>, %qp: tensor<2x4x3x32xf32>,
                                            %ckv: tensor<2x1x10x64xf32>, %kpe: tensor<2x1x10x32xf32>,
                                            %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 7>})
    -> tensor<2x4x3x64xf32> {
  %ckvt = poot.transpose %ckv {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x10x64xf32>
  %s1 = poot.matmul %qn, %ckvt : tensor<2x4x3x64xf32>, tensor<2x1x64x10xf32>
  %kpet = poot.transpose %kpe {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x10x32xf32>
  %s2 = poot.matmul %qp, %kpet : tensor<2x4x3x32xf32>, tensor<2x1x32x10xf32>
  %s = poot.add %s1, %s2 : tensor<2x4x3x10xf32>, tensor<2x4x3x10xf32>
  %c = poot.constant dense<0.0721687824> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x4x3x10xf32>, tensor<f32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x3x1xi32>
  %qpos = poot.add %p4, %i : tensor<1x1x1x1xi32>, tensor<1x1x3x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x10xi32>
  %hid = poot.compare gt, %t, %qpos : tensor<1x1x1x10xi32>, tensor<1x1x3x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<1x1x3x10xi1>, tensor<f32>, tensor<2x4x3x10xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x3x10xf32>
  %d = poot.sub %sm, %m : tensor<2x4x3x10xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x10xf32>
  %p = poot.div %e, %z : tensor<2x4x3x10xf32>, tensor<2x4x3x1xf32>
  %o = poot.matmul %p, %ckv : tensor<2x4x3x10xf32>, tensor<2x1x10x64xf32>
  return %o : tensor<2x4x3x64xf32>
}
