// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers LeViT (models/levit/modeling_levit.py,
// LevitAttentionSubsample.forward, eval), f32: keys and values from every
// token of the 4 x 4 grid, key, value = keys_values(h).view(B, 16, heads,
// -1).split([key_dim, attention_ratio * key_dim], dim=3) (one packed
// [k | v] block per head, v four times wider than k), permute(0, 2, 1, 3);
// MLPLayerWithBN is a bias-free Linear followed by BatchNorm1d in eval
// ((x - running_mean) * rsqrt(running_var + 1e-5) * weight + bias); the
// queries from LevitSubsample, h.view(B, 4, 4, C)[:, ::2, ::2].reshape(B,
// -1, C) (strided slices), then queries(...) .view(B, 4, heads, key_dim)
// .permute(0, 2, 1, 3); attention = q @ k^T * key_dim^-0.5 +
// attention_biases[:, attention_bias_idxs] (a [heads, 16] parameter
// gathered by the constant [4, 16] offset table built in __init__ from
// |2 * p1 - p2| per axis); softmax(dim=-1); (attention @ v).transpose(1, 2)
// .reshape(B, -1, out_dim_projection). B = 1, C = 16, 2 heads, key_dim 8,
// attention_ratio 4 (Dv = 32), Lq = 4, Lk = 16.

// CHECK-LABEL: func.func @hf_levit_subsample_bias_index_gather_dv_wide_f32
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask({{.+}} : tensor<1x2x4x16xf32>) {n_rep = 1 : i64, scale = 0.35355{{[0-9]*}} : f64} : tensor<1x2x4x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x32xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.353553, tensor mask{{$}}
func.func @hf_levit_subsample_bias_index_gather_dv_wide_f32(
    %h: tensor<1x16x16xf32>,
    %wkv: tensor<80x16xf32>, %kv_rm: tensor<80xf32>, %kv_rv: tensor<80xf32>,
    %kv_w: tensor<80xf32>, %kv_b: tensor<80xf32>,
    %wq: tensor<16x16xf32>, %q_rm: tensor<16xf32>, %q_rv: tensor<16xf32>,
    %q_w: tensor<16xf32>, %q_b: tensor<16xf32>,
    %biases: tensor<2x16xf32>) -> tensor<1x4x64xf32> {
  %eps = poot.constant dense<9.99999974E-6> : tensor<f32>
  // self.keys_values(hidden_state): Linear(bias=False) + BatchNorm1d
  %wkvt = poot.transpose %wkv {perm = array<i64: 1, 0>} : tensor<80x16xf32>
  %kv0 = poot.matmul %h, %wkvt : tensor<1x16x16xf32>, tensor<16x80xf32>
  %kvf = poot.reshape %kv0 : tensor<1x16x80xf32> -> tensor<16x80xf32>
  %kvc = poot.sub %kvf, %kv_rm : tensor<16x80xf32>, tensor<80xf32>
  %kvve = poot.add %kv_rv, %eps : tensor<80xf32>, tensor<f32>
  %kvr = poot.rsqrt %kvve : tensor<80xf32>
  %kvn = poot.mul %kvc, %kvr : tensor<16x80xf32>, tensor<80xf32>
  %kvw = poot.mul %kvn, %kv_w : tensor<16x80xf32>, tensor<80xf32>
  %kvb = poot.add %kvw, %kv_b : tensor<16x80xf32>, tensor<80xf32>
  %kv = poot.reshape %kvb : tensor<16x80xf32> -> tensor<1x16x80xf32>
  // .view(B, N, heads, -1).split([8, 32], dim=3)
  %kv4 = poot.reshape %kv : tensor<1x16x80xf32> -> tensor<1x16x2x40xf32>
  %k0 = poot.slice %kv4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 16, 2, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x16x2x40xf32>
  %v0 = poot.slice %kv4 {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 16, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<1x16x2x40xf32>
  %k = poot.transpose %k0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x2x8xf32>
  %v = poot.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x16x2x32xf32>
  // LevitSubsample: view(B, 4, 4, C)[:, ::2, ::2].reshape(B, -1, C)
  %hg = poot.reshape %h : tensor<1x16x16xf32> -> tensor<1x4x4x16xf32>
  %hsub = poot.slice %hg {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 4, 16>, step = array<i64: 1, 2, 2, 1>} : tensor<1x4x4x16xf32>
  %hq = poot.reshape %hsub : tensor<1x2x2x16xf32> -> tensor<1x4x16xf32>
  // self.queries: Linear(bias=False) + BatchNorm1d
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<16x16xf32>
  %q0 = poot.matmul %hq, %wqt : tensor<1x4x16xf32>, tensor<16x16xf32>
  %qf = poot.reshape %q0 : tensor<1x4x16xf32> -> tensor<4x16xf32>
  %qc = poot.sub %qf, %q_rm : tensor<4x16xf32>, tensor<16xf32>
  %qve = poot.add %q_rv, %eps : tensor<16xf32>, tensor<f32>
  %qr = poot.rsqrt %qve : tensor<16xf32>
  %qn = poot.mul %qc, %qr : tensor<4x16xf32>, tensor<16xf32>
  %qw = poot.mul %qn, %q_w : tensor<4x16xf32>, tensor<16xf32>
  %qb = poot.add %qw, %q_b : tensor<4x16xf32>, tensor<16xf32>
  %q4 = poot.reshape %qb : tensor<4x16xf32> -> tensor<1x4x2x8xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x8xf32>
  // self.attention_biases[:, self.attention_bias_idxs]
  %idxs = poot.constant dense<[[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15],[2,1,0,1,6,5,4,5,10,9,8,9,14,13,12,13],[8,9,10,11,4,5,6,7,0,1,2,3,4,5,6,7],[10,9,8,9,6,5,4,5,2,1,0,1,6,5,4,5]]> : tensor<4x16xi64>
  %ab = poot.gather %biases[%idxs] {axis = 1 : i64} : tensor<2x16xf32>, tensor<4x16xi64>
  // query @ key.transpose(-2, -1) * self.scale + biases
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x16x8xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x4x8xf32>, tensor<1x2x8x16xf32>
  %sc = poot.constant dense<0.353553385> : tensor<f32>
  %s1 = poot.mul %s0, %sc : tensor<1x2x4x16xf32>, tensor<f32>
  %s = poot.add %s1, %ab : tensor<1x2x4x16xf32>, tensor<2x4x16xf32>
  // attention.softmax(dim=-1)
  %mx = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %d = poot.sub %s, %mx : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %p = poot.div %e, %z : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x16xf32>, tensor<1x2x16x32xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x32xf32>
  %out = poot.reshape %ot : tensor<1x4x2x32xf32> -> tensor<1x4x64xf32>
  return %out : tensor<1x4x64xf32>
}
