// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, CaiT talking-heads attention (huggingface/pytorch-image-models
// timm/models/cait.py, TalkingHeadAttn.forward): q = qkv[0] * scale; attn =
// q @ k^T; attn = proj_l(attn.permute(0, 2, 3, 1)).permute(0, 3, 1, 2) (a
// Linear mixing the heads before the softmax); softmax(dim=-1); attn =
// proj_w(attn.permute(0, 2, 3, 1)).permute(0, 3, 1, 2) (mixing the heads'
// probabilities after it); attn @ v. Each head's weights are a mix of every
// head's scores and probabilities: no per-head softmax(q . k) . v; must not
// fuse. B = 1, H = 4, N = 6, head 16, f32.

// CHECK-LABEL: func.func @nm_cait_talking_heads_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: softmax over axis 2, expected the key axis 3
func.func @nm_cait_talking_heads_f32(%q0: tensor<1x4x6x16xf32>, %k: tensor<1x4x6x16xf32>,
                                     %v: tensor<1x4x6x16xf32>, %wl: tensor<4x4xf32>, %bl: tensor<4xf32>,
                                     %ww: tensor<4x4xf32>, %bw: tensor<4xf32>) -> tensor<1x6x64xf32> {
  %sc = poot.constant dense<0.25> : tensor<f32>
  %q = poot.mul %q0, %sc : tensor<1x4x6x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xf32>
  %a0 = poot.matmul %q, %kt : tensor<1x4x6x16xf32>, tensor<1x4x16x6xf32>
  %a1 = poot.transpose %a0 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x4x6x6xf32>
  %wlt = poot.transpose %wl {perm = array<i64: 1, 0>} : tensor<4x4xf32>
  %a2 = poot.matmul %a1, %wlt : tensor<1x6x6x4xf32>, tensor<4x4xf32>
  %a3 = poot.add %a2, %bl : tensor<1x6x6x4xf32>, tensor<4xf32>
  %a = poot.transpose %a3 {perm = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32>
  %m = poot.reduce_max %a {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %a, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %p1 = poot.transpose %p {perm = array<i64: 0, 2, 3, 1>} : tensor<1x4x6x6xf32>
  %wwt = poot.transpose %ww {perm = array<i64: 1, 0>} : tensor<4x4xf32>
  %p2 = poot.matmul %p1, %wwt : tensor<1x6x6x4xf32>, tensor<4x4xf32>
  %p3 = poot.add %p2, %bw : tensor<1x6x6x4xf32>, tensor<4xf32>
  %pw = poot.transpose %p3 {perm = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf32>
  %x = poot.matmul %pw, %v : tensor<1x4x6x6xf32>, tensor<1x4x6x16xf32>
  %xt = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xf32>
  %o = poot.reshape %xt : tensor<1x6x4x16xf32> -> tensor<1x6x64xf32>
  return %o : tensor<1x6x64xf32>
}
