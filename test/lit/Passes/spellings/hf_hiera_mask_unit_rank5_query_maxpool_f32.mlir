// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers Hiera (models/hiera/modeling_hiera.py,
// HieraMaskUnitAttention.forward with use_mask_unit_attn and query_stride
// 4, the first layer of a pooled stage), f32: the tokens arrive unrolled,
// so the mask unit (window) index is the fastest-varying: num_windows =
// seq_len // (query_stride * window_size); qkv = self.qkv(h).reshape(B, -1,
// num_windows, 3, heads, head_dim).permute(3, 0, 4, 2, 1, 5), unbind(0),
// giving [B, heads, windows, tokens, head_dim] per tensor; query pooling:
// query.view(B, heads, windows, query_stride, -1, head_dim).max(dim=3)
// .values (a max over the 4 strided query positions of each unit, before
// the scores); attn = (query * scale) @ key.transpose(-1, -2) at rank 5;
// softmax(dim=-1); attn @ value; transpose(1, 3).reshape(B, -1, dim_out).
// B = 1, 32 tokens in 2 mask units of 16, 4 pooled queries per unit,
// 2 heads of 8, dim = dim_out = 16.

// The batch and head dims [B, heads] are merged into one batch axis and
// the mask units are the fused op's heads (each unit has its own keys and
// values, so which of the two is called the heads is only a label).
// CHECK-LABEL: func.func @hf_hiera_mask_unit_rank5_query_maxpool_f32
// CHECK: poot.attention %{{.*}}, %{{.*}}, %{{.*}} {n_rep = 1 : i64, scale = 0.35355{{[0-9]*}} : f64} : tensor<2x2x4x8xf32>, tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.353553{{$}}
func.func @hf_hiera_mask_unit_rank5_query_maxpool_f32(
    %h: tensor<1x32x16xf32>, %w: tensor<48x16xf32>, %b: tensor<48xf32>) -> tensor<1x8x16xf32> {
  // qkv = self.qkv(hidden_states)
  %wt = poot.transpose %w {perm = array<i64: 1, 0>} : tensor<48x16xf32>
  %qkv0 = poot.matmul %h, %wt : tensor<1x32x16xf32>, tensor<16x48xf32>
  %qkv1 = poot.add %qkv0, %b : tensor<1x32x48xf32>, tensor<48xf32>
  // .reshape(B, -1, num_windows, 3, heads, head_dim).permute(3, 0, 4, 2, 1, 5)
  %qkv6 = poot.reshape %qkv1 : tensor<1x32x48xf32> -> tensor<1x16x2x3x2x8xf32>
  %qkv = poot.transpose %qkv6 {perm = array<i64: 3, 0, 4, 2, 1, 5>} : tensor<1x16x2x3x2x8xf32>
  // query, key, value = qkv.unbind(0)
  %qs = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 2, 16, 8>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<3x1x2x2x16x8xf32>
  %ks = poot.slice %qkv {start = array<i64: 1, 0, 0, 0, 0, 0>, limit = array<i64: 2, 1, 2, 2, 16, 8>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<3x1x2x2x16x8xf32>
  %vs = poot.slice %qkv {start = array<i64: 2, 0, 0, 0, 0, 0>, limit = array<i64: 3, 1, 2, 2, 16, 8>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<3x1x2x2x16x8xf32>
  %q5 = poot.reshape %qs : tensor<1x1x2x2x16x8xf32> -> tensor<1x2x2x16x8xf32>
  %k = poot.reshape %ks : tensor<1x1x2x2x16x8xf32> -> tensor<1x2x2x16x8xf32>
  %v = poot.reshape %vs : tensor<1x1x2x2x16x8xf32> -> tensor<1x2x2x16x8xf32>
  // query.view(B, heads, windows, query_stride, -1, head_dim).max(dim=3)
  %q6 = poot.reshape %q5 : tensor<1x2x2x16x8xf32> -> tensor<1x2x2x4x4x8xf32>
  %qm = poot.reduce_max %q6 {axis = 3 : i64} : tensor<1x2x2x4x4x8xf32>
  // (query * self.scale) @ key.transpose(-1, -2)
  %sc = poot.constant dense<0.353553385> : tensor<f32>
  %qsc = poot.mul %qm, %sc : tensor<1x2x2x4x8xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x2x16x8xf32>
  %s = poot.matmul %qsc, %kt : tensor<1x2x2x4x8xf32>, tensor<1x2x2x8x16xf32>
  // attn_weights.softmax(dim=-1)
  %mx = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x2x2x4x16xf32>
  %d = poot.sub %s, %mx : tensor<1x2x2x4x16xf32>, tensor<1x2x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x2x4x16xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x2x4x16xf32>
  %p = poot.div %e, %z : tensor<1x2x2x4x16xf32>, tensor<1x2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x2x4x16xf32>, tensor<1x2x2x16x8xf32>
  // attn_output.transpose(1, 3).reshape(B, -1, dim_out)
  %ot = poot.transpose %o {perm = array<i64: 0, 3, 2, 1, 4>} : tensor<1x2x2x4x8xf32>
  %out = poot.reshape %ot : tensor<1x4x2x2x8xf32> -> tensor<1x8x16xf32>
  return %out : tensor<1x8x16xf32>
}
