// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, Differential Transformer (microsoft/unilm
// Diff-Transformer/multihead_diffattn.py, MultiheadDiffAttn.forward, the
// non-flash reference): q viewed [B, L, 2H, d], k [B, L, 2Hkv, d], v [B, L,
// Hkv, 2d] (rotary already applied); q *= scaling; attn_weights = q @ k^T;
// attn_mask = triu(zeros(L, L).fill_(-inf), 1); torch.nan_to_num(w); w +=
// mask; softmax(dim=-1, f32); lambda_full = exp(sum(lq1 * lk1)) -
// exp(sum(lq2 * lk2)) + lambda_init (depth 1: 0.8 - 0.6 * exp(-0.3));
// w.view(B, H, 2, L, L); w[:, :, 0] - lambda_full * w[:, :, 1]; matmul(w, v).
// The weights are a difference of two softmaxes: not one attention; must not
// fuse (two attentions and a difference of their outputs would be the
// rewrite). H = 2 (4 q/k maps of d = 16), Hkv = 2, L = 6, B = 1, f32.

// CHECK-LABEL: func.func @nm_diff_transformer_lambda_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN-NOT: attention fused
func.func @nm_diff_transformer_lambda_f32(%q0: tensor<1x6x4x16xf32>, %k0: tensor<1x6x4x16xf32>,
                                          %v0: tensor<1x6x2x32xf32>, %lq1: tensor<16xf32>, %lk1: tensor<16xf32>,
                                          %lq2: tensor<16xf32>, %lk2: tensor<16xf32>) -> tensor<1x2x6x32xf32> {
  %q1 = poot.transpose %q0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  %k = poot.transpose %k0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  %v = poot.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x32xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %q = poot.mul %q1, %sc : tensor<1x4x6x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xf32>
  %w0 = poot.matmul %q, %kt : tensor<1x4x6x16xf32>, tensor<1x4x16x6xf32>
  // torch.nan_to_num: nan -> 0, +inf -> finfo.max, -inf -> finfo.min
  %isnan = poot.compare ne, %w0, %w0 : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %w1 = poot.select %isnan, %zero, %w0 : tensor<1x4x6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %pinf = poot.constant dense<0x7F800000> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %fmax = poot.constant dense<3.40282347E+38> : tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %isp = poot.compare eq, %w1, %pinf : tensor<1x4x6x6xf32>, tensor<f32>
  %w2 = poot.select %isp, %fmax, %w1 : tensor<1x4x6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %isn = poot.compare eq, %w2, %ninf : tensor<1x4x6x6xf32>, tensor<f32>
  %w3 = poot.select %isn, %fmin, %w2 : tensor<1x4x6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %mask = poot.constant dense<[[0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0]]> : tensor<6x6xf32>
  %w = poot.add %w3, %mask : tensor<1x4x6x6xf32>, tensor<6x6xf32>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %w, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %l1a = poot.mul %lq1, %lk1 : tensor<16xf32>, tensor<16xf32>
  %l1b = poot.reduce_sum %l1a {axis = 0 : i64} : tensor<16xf32>
  %l1 = poot.exp %l1b : tensor<f32>
  %l2a = poot.mul %lq2, %lk2 : tensor<16xf32>, tensor<16xf32>
  %l2b = poot.reduce_sum %l2a {axis = 0 : i64} : tensor<16xf32>
  %l2 = poot.exp %l2b : tensor<f32>
  %linit = poot.constant dense<0.355509073> : tensor<f32>
  %l12 = poot.sub %l1, %l2 : tensor<f32>, tensor<f32>
  %lam = poot.add %l12, %linit : tensor<f32>, tensor<f32>
  %p5 = poot.reshape %p : tensor<1x4x6x6xf32> -> tensor<1x2x2x6x6xf32>
  %pa = poot.slice %p5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 1, 6, 6>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x2x6x6xf32>
  %pb = poot.slice %p5 {start = array<i64: 0, 0, 1, 0, 0>, limit = array<i64: 1, 2, 2, 6, 6>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x2x6x6xf32>
  %pa4 = poot.reshape %pa : tensor<1x2x1x6x6xf32> -> tensor<1x2x6x6xf32>
  %pb4 = poot.reshape %pb : tensor<1x2x1x6x6xf32> -> tensor<1x2x6x6xf32>
  %lpb = poot.mul %lam, %pb4 : tensor<f32>, tensor<1x2x6x6xf32>
  %wd = poot.sub %pa4, %lpb : tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>
  %o = poot.matmul %wd, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x32xf32>
  return %o : tensor<1x2x6x32xf32>
}
