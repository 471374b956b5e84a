// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// DINOv2 (facebookresearch/dinov2, dinov2/layers/attention.py,
// Attention.forward, which MemEffAttention.forward falls back to when
// xFormers is unavailable), f16: qkv = self.qkv(x).reshape(B, N, 3,
// num_heads, C // num_heads).permute(2, 0, 3, 1, 4); q, k, v = qkv[0] *
// self.scale, qkv[1], qkv[2]; attn = q @ k.transpose(-2, -1);
// attn.softmax(dim=-1); attn @ v; transpose(1, 2).reshape(B, N, C). The qkv
// Linear (with bias) is included, proj is outside. B = 2, N = 5 tokens
// (cls + 4 patches), C = 64 in 4 heads of 16.
//
// Strongest form: one fused op, no mask, scale 1/4, n_rep 1.

// CHECK-LABEL: func.func @dinov2_attention_packed_qkv_rank5_permute_index_scale_q_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x5x16xf16>, tensor<2x4x5x16xf16>, tensor<2x4x5x16xf16> -> tensor<2x4x5x16xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25
func.func @dinov2_attention_packed_qkv_rank5_permute_index_scale_q_f16(
    %x: tensor<2x5x64xf16>, %wqkv_t: tensor<64x192xf16>, %bqkv: tensor<192xf16>) -> tensor<2x5x64xf16> {
  %l0 = poot.matmul %x, %wqkv_t : tensor<2x5x64xf16>, tensor<64x192xf16>
  %l = poot.add %l0, %bqkv : tensor<2x5x192xf16>, tensor<192xf16>
  // reshape(B, N, 3, num_heads, C // num_heads).permute(2, 0, 3, 1, 4)
  %r5 = poot.reshape %l : tensor<2x5x192xf16> -> tensor<2x5x3x4x16xf16>
  %qkv = poot.transpose %r5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<2x5x3x4x16xf16>
  // q, k, v = qkv[0] * self.scale, qkv[1], qkv[2]
  %q5 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x2x4x5x16xf16>
  %k5 = poot.slice %qkv {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 2, 4, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x2x4x5x16xf16>
  %v5 = poot.slice %qkv {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 2, 4, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x2x4x5x16xf16>
  %q0 = poot.reshape %q5 : tensor<1x2x4x5x16xf16> -> tensor<2x4x5x16xf16>
  %k = poot.reshape %k5 : tensor<1x2x4x5x16xf16> -> tensor<2x4x5x16xf16>
  %v = poot.reshape %v5 : tensor<1x2x4x5x16xf16> -> tensor<2x4x5x16xf16>
  %scale = poot.constant dense<0.25> : tensor<f16>
  %q = poot.mul %q0, %scale : tensor<2x4x5x16xf16>, tensor<f16>
  // attn = q @ k.transpose(-2, -1); attn.softmax(dim=-1)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x16xf16>
  %a = poot.matmul %q, %kt : tensor<2x4x5x16xf16>, tensor<2x4x16x5xf16>
  %mx = poot.reduce_max %a {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf16>
  %d = poot.sub %a, %mx : tensor<2x4x5x5xf16>, tensor<2x4x5x1xf16>
  %e = poot.exp %d : tensor<2x4x5x5xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf16>
  %p = poot.div %e, %z : tensor<2x4x5x5xf16>, tensor<2x4x5x1xf16>
  // (attn @ v).transpose(1, 2).reshape(B, N, C)
  %o = poot.matmul %p, %v : tensor<2x4x5x5xf16>, tensor<2x4x5x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x5x16xf16>
  %out = poot.reshape %ot : tensor<2x5x4x16xf16> -> tensor<2x5x64xf16>
  return %out : tensor<2x5x64xf16>
}
