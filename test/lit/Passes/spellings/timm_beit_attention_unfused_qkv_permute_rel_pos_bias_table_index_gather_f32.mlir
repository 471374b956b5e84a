// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/pytorch-image-models (timm) 1.0.9, timm/models/beit.py,
// Attention.forward with fused_attn False (TIMM_FUSED_ATTN=0; the same
// unfused path as timm/layers/attention.py's ViT Attention, plus the
// relative position bias), f32, eval. qkv = self.qkv(x) (F.linear with
// cat(q_bias, k_bias, v_bias); left outside, its output is the input);
// qkv.reshape(B, N, 3, num_heads, -1).permute(2, 0, 3, 1, 4).unbind(0);
// q = q * self.scale (head_dim ** -0.5); attn = q @ k.transpose(-2, -1);
// attn = attn + self._get_rel_pos_bias(): relative_position_bias_table
// [num_relative_distance, H] (a parameter, an input here) indexed by the
// registered buffer relative_position_index.view(-1) (int64, from
// gen_relative_position_index(window_size): ndgrid coords, pairwise
// differences shifted and scaled, the row and column of the cls token set
// to num_relative_distance - 3 / - 2, the corner to - 1), .view(N, N, -1),
// .permute(2, 0, 1).contiguous(), .unsqueeze(0); shared_rel_pos_bias None;
// attn.softmax(dim=-1); attn_drop (p 0); x = attn @ v;
// x.transpose(1, 2).reshape(B, N, C) (proj left outside). window_size
// (3, 3) plus the cls token: N = 10, num_relative_distance = 28; B = 2,
// dim 64 = 4 heads of 16.
//
// Strongest form: one fused op with the gathered bias as a tensor mask
// shared by the batch ([1, H, N, N]: a learned table, nothing to read as
// a band or ALiBi), scale 1/4 (on q), n_rep 1.

// CHECK-LABEL: func.func @timm_beit_attention_unfused_qkv_permute_rel_pos_bias_table_index_gather_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x4x10x10xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @timm_beit_attention_unfused_qkv_permute_rel_pos_bias_table_index_gather_f32(
    %qkv_out: tensor<2x10x192xf32>, %relative_position_bias_table: tensor<28x4xf32>) -> tensor<2x10x64xf32> {
  // qkv.reshape(B, N, 3, self.num_heads, -1).permute(2, 0, 3, 1, 4); q, k, v = qkv.unbind(0)
  %qkv5 = poot.reshape %qkv_out : tensor<2x10x192xf32> -> tensor<2x10x3x4x16xf32>
  %qkv = poot.transpose %qkv5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<2x10x3x4x16xf32>
  %qsl = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 10, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x2x4x10x16xf32>
  %q = poot.reshape %qsl : tensor<1x2x4x10x16xf32> -> tensor<2x4x10x16xf32>
  %ks = poot.slice %qkv {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 2, 4, 10, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x2x4x10x16xf32>
  %k = poot.reshape %ks : tensor<1x2x4x10x16xf32> -> tensor<2x4x10x16xf32>
  %vs = poot.slice %qkv {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 2, 4, 10, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x2x4x10x16xf32>
  %v = poot.reshape %vs : tensor<1x2x4x10x16xf32> -> tensor<2x4x10x16xf32>
  // q = q * self.scale
  %scale = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %scale : tensor<2x4x10x16xf32>, tensor<f32>
  // attn = (q @ k.transpose(-2, -1))
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x10x16xf32>
  %attn0 = poot.matmul %qs, %kt : tensor<2x4x10x16xf32>, tensor<2x4x16x10xf32>
  // _get_rel_pos_bias: relative_position_bias_table[relative_position_index.view(-1)].view(N, N, -1)
  %rpi = poot.constant dense<[27, 25, 25, 25, 25, 25, 25, 25, 25, 25, 26, 12, 11, 10, 7, 6, 5, 2, 1, 0, 26, 13, 12, 11, 8, 7, 6, 3, 2, 1, 26, 14, 13, 12, 9, 8, 7, 4, 3, 2, 26, 17, 16, 15, 12, 11, 10, 7, 6, 5, 26, 18, 17, 16, 13, 12, 11, 8, 7, 6, 26, 19, 18, 17, 14, 13, 12, 9, 8, 7, 26, 22, 21, 20, 17, 16, 15, 12, 11, 10, 26, 23, 22, 21, 18, 17, 16, 13, 12, 11, 26, 24, 23, 22, 19, 18, 17, 14, 13, 12]> : tensor<100xi64>
  %g = poot.gather %relative_position_bias_table[%rpi] {axis = 0 : i64} : tensor<28x4xf32>, tensor<100xi64>
  %g3 = poot.reshape %g : tensor<100x4xf32> -> tensor<10x10x4xf32>
  // .permute(2, 0, 1).contiguous(); .unsqueeze(0)
  %rpb3 = poot.transpose %g3 {perm = array<i64: 2, 0, 1>} : tensor<10x10x4xf32>
  %rpb = poot.reshape %rpb3 : tensor<4x10x10xf32> -> tensor<1x4x10x10xf32>
  // attn = attn + self._get_rel_pos_bias()
  %attn = poot.add %attn0, %rpb : tensor<2x4x10x10xf32>, tensor<1x4x10x10xf32>
  // attn = attn.softmax(dim=-1)
  %mx = poot.reduce_max %attn {axis = 3 : i64, keepdim} : tensor<2x4x10x10xf32>
  %d = poot.sub %attn, %mx : tensor<2x4x10x10xf32>, tensor<2x4x10x1xf32>
  %e = poot.exp %d : tensor<2x4x10x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x10x10xf32>
  %p = poot.div %e, %z : tensor<2x4x10x10xf32>, tensor<2x4x10x1xf32>
  // x = attn @ v; x.transpose(1, 2).reshape(B, N, C)
  %x = poot.matmul %p, %v : tensor<2x4x10x10xf32>, tensor<2x4x10x16xf32>
  %xt = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x10x16xf32>
  %out = poot.reshape %xt : tensor<2x10x4x16xf32> -> tensor<2x10x64xf32>
  return %out : tensor<2x10x64xf32>
}
