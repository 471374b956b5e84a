// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Microsoft Florence-2 (microsoft/Florence-2-base on the Hugging Face Hub,
// modeling_florence2.py), the DaViT vision tower's ChannelAttention.forward,
// f16: B, N, C = x.shape; qkv = self.qkv(x) (Linear with bias)
// .reshape(B, N, 3, groups, C // groups).permute(2, 0, 3, 1, 4); q, k, v =
// qkv[0], qkv[1], qkv[2]; q = q * (float(N) ** -0.5) (the token count, not
// the group width); attention = q.transpose(-1, -2) @ k (channels against
// channels, summed over the tokens); attention.softmax(dim=-1) (f32
// accumulation, f16 out); x = (attention @ v.transpose(-1, -2))
// .transpose(-1, -2); x.transpose(1, 2).reshape(B, N, C). One image of
// 8 x 8 = 64 tokens, C = 64 in 4 groups of 16 channels.
//
// Strongest form: this is attention with the roles of tokens and channels
// exchanged: queries q^T, keys k^T, values v^T, each [B, groups, C/groups =
// 16, N = 64], so "head dim" 64 and 16 rows; out^T = softmax(q^T k * N^-1/2)
// v^T. One poot.attention over the transposed operands, no mask, n_rep 1,
// scale 64^-1/2 = 0.125, its result transposed back.

// CHECK-LABEL: func.func @florence2_davit_channel_attention_tokens_as_head_dim_inv_sqrt_n_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 1.250000e-01 : f64} : tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16>, tensor<1x4x16x64xf16> -> tensor<1x4x16x64xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125{{$}}
func.func @florence2_davit_channel_attention_tokens_as_head_dim_inv_sqrt_n_f16(
    %x: tensor<1x64x64xf16>, %qkv_w: tensor<64x192xf16>, %qkv_b: tensor<192xf16>)
    -> tensor<1x64x64xf16> {
  // qkv = self.qkv(x).reshape(B, N, 3, groups, C // groups).permute(2, 0, 3, 1, 4)
  %l0 = poot.matmul %x, %qkv_w : tensor<1x64x64xf16>, tensor<64x192xf16>
  %l1 = poot.add %l0, %qkv_b : tensor<1x64x192xf16>, tensor<192xf16>
  %l5 = poot.reshape %l1 : tensor<1x64x192xf16> -> tensor<1x64x3x4x16xf16>
  %qkv = poot.transpose %l5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<1x64x3x4x16xf16>
  %q5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 64, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x4x64x16xf16>
  %k5 = poot.slice %qkv {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 1, 4, 64, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x4x64x16xf16>
  %v5 = poot.slice %qkv {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 1, 4, 64, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x4x64x16xf16>
  %q = poot.reshape %q5 : tensor<1x1x4x64x16xf16> -> tensor<1x4x64x16xf16>
  %k = poot.reshape %k5 : tensor<1x1x4x64x16xf16> -> tensor<1x4x64x16xf16>
  %v = poot.reshape %v5 : tensor<1x1x4x64x16xf16> -> tensor<1x4x64x16xf16>
  // q = q * (float(N) ** -0.5)
  %sc = poot.constant dense<0.125> : tensor<f16>
  %qs = poot.mul %q, %sc : tensor<1x4x64x16xf16>, tensor<f16>
  // attention = q.transpose(-1, -2) @ k
  %qt = poot.transpose %qs {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x64x16xf16>
  %att = poot.matmul %qt, %k : tensor<1x4x16x64xf16>, tensor<1x4x64x16xf16>
  // attention.softmax(dim=-1): f32 accumulation, f16 out
  %af = poot.convert %att : tensor<1x4x16x16xf16> -> tensor<1x4x16x16xf32>
  %mx = poot.reduce_max %af {axis = 3 : i64, keepdim} : tensor<1x4x16x16xf32>
  %d = poot.sub %af, %mx : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>
  %e = poot.exp %d : tensor<1x4x16x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x16x16xf32>
  %pf = poot.div %e, %z : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>
  %p = poot.convert %pf : tensor<1x4x16x16xf32> -> tensor<1x4x16x16xf16>
  // x = (attention @ v.transpose(-1, -2)).transpose(-1, -2)
  %vt = poot.transpose %v {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x64x16xf16>
  %o = poot.matmul %p, %vt : tensor<1x4x16x16xf16>, tensor<1x4x16x64xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x64xf16>
  // x.transpose(1, 2).reshape(B, N, C)
  %o2 = poot.transpose %ot {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x64x16xf16>
  %out = poot.reshape %o2 : tensor<1x64x4x16xf16> -> tensor<1x64x64xf16>
  return %out : tensor<1x64x64xf16>
}
