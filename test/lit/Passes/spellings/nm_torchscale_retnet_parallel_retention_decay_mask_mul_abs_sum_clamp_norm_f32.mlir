// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, microsoft/torchscale at 05a9628,
// torchscale/component/multiscale_retention.py,
// MultiScaleRetention.parallel_forward (RetNet's parallel form), f32:
// vr = v.view(B, L, heads, head_dim).transpose(1, 2); qk_mat = qr @
// kr.transpose(-1, -2) (k was pre-multiplied by key_dim^-0.5 and both
// rotated by theta_shift in forward; qr, kr are the inputs here);
// qk_mat = qk_mat * mask (the decay mask [heads, L, L] of RetNetRelPos:
// exp(decay * (i - j)) on the causal part, 0 above, row-normalised; an
// input here); qk_mat = qk_mat / qk_mat.detach().sum(dim=-1,
// keepdim=True).abs().clamp(min=1); output = matmul(qk_mat, vr);
// transpose(1, 2). q . k scores, a mask, a row normalisation and a P . V
// matmul, but no exponential: the weights are signed, linear in the scores
// and normalised by |sum| clamped at 1. Not softmax attention; must
// decline. B = 2, L = 6, 4 heads, key_dim = head_dim = 16.

// CHECK-LABEL: func.func @nm_torchscale_retnet_parallel_retention_decay_mask_mul_abs_sum_clamp_norm_f32
// CHECK-NOT: poot.attention
// EXPLAIN-NOT: attention fused
func.func @nm_torchscale_retnet_parallel_retention_decay_mask_mul_abs_sum_clamp_norm_f32(
    %qr: tensor<2x4x6x16xf32>, %kr: tensor<2x4x6x16xf32>, %v: tensor<2x6x64xf32>,
    %mask: tensor<4x6x6xf32>) -> tensor<2x6x4x16xf32> {
  // vr = v.view(bsz, tgt_len, self.num_heads, self.head_dim).transpose(1, 2)
  %v4 = poot.reshape %v : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %vr = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  // qk_mat = qr @ kr.transpose(-1, -2); qk_mat = qk_mat * mask
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x16xf32>
  %qk = poot.matmul %qr, %kt : tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>
  %qkm = poot.mul %qk, %mask : tensor<2x4x6x6xf32>, tensor<4x6x6xf32>
  // qk_mat / qk_mat.detach().sum(dim=-1, keepdim=True).abs().clamp(min=1)
  %s = poot.reduce_sum %qkm {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %sa = poot.abs %s : tensor<2x4x6x1xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %sc = poot.max %sa, %one : tensor<2x4x6x1xf32>, tensor<f32>
  %w = poot.div %qkm, %sc : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  // output = torch.matmul(qk_mat, vr); output.transpose(1, 2)
  %o = poot.matmul %w, %vr : tensor<2x4x6x6xf32>, tensor<2x4x6x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x16xf32>
  return %ot : tensor<2x6x4x16xf32>
}
