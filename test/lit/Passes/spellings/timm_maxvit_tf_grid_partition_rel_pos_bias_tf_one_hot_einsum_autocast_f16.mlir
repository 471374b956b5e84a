// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// timm MaxViT with the TF-ported config (timm/models/maxxvit.py,
// maxvit_*_tf: _tf_cfg() sets head_first=False and rel_pos_type='bias_tf'),
// the grid-attention half of a MaxxVitBlock (PartitionAttentionCl with
// partition_type='grid', AttentionCl.forward, fused_attn off), run under
// torch.autocast(float16) as timm's --amp inference does. grid_partition:
// x.view(B, g, H // g, g, W // g, C).permute(0, 2, 4, 1, 3, 5).view(-1, g,
// g, C) (the tokens of one grid cell are strided across the image); the
// LayerNorm output arrives in f32 (autocast runs norms in f32), qkv
// Linear in f16: qkv(x).reshape(B, -1, 3, heads, dim_head).transpose(1,
// 3).unbind(2) (heads interleaved with q/k/v in the channel dim); q = q *
// self.scale (dim_head^-0.5, an f16 constant in the traced graph); attn =
// q @ k.transpose(-2, -1); self.rel_pos(attn) is RelPosBiasTf: attn +
// reindex_2d_einsum_lookup(table [heads, 2g-1, 2g-1], g, g, height_lookup,
// width_lookup), two einsums with one-hot lookup buffers from
// generate_lookup_tensor (ret[i, x, v] = 1 iff v = x - i + g - 1):
// einsum('nhw,ixh->nixw') then einsum('nixw,jyw->nijxy'), reshaped
// [heads, g*g, g*g], each written out as torch's einsum lowers it
// (permute, a 2-d matmul, permute back), in f16 under autocast;
// attn.softmax(dim=-1) runs in f32 (autocast's f32 list); attn @ v back in
// f16; x.transpose(1, 2).reshape(restore_shape + (-1,)); proj; grid_reverse.
// B = 1, a 6 x 6 map, grid 3 x 3 (4 partitions of 9 tokens), C = 64,
// dim_head 32 (2 heads).
//
// Strongest form: attention over the 4 partitions x 2 heads with the
// relative-position bias as the tensor mask (a learned table, one [9, 9]
// bias per head, the same for every partition), n_rep 1, scale the f16
// value of 32^-0.5, 0.1767578125.

// CHECK-LABEL: func.func @timm_maxvit_tf_grid_partition_rel_pos_bias_tf_one_hot_einsum_autocast_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 0.17675781{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176758, tensor mask
func.func @timm_maxvit_tf_grid_partition_rel_pos_bias_tf_one_hot_einsum_autocast_f16(
    %x: tensor<1x6x6x64xf32>, %qkv_w: tensor<192x64xf32>, %qkv_b: tensor<192xf32>,
    %rel_table: tensor<2x5x5xf32>, %proj_w: tensor<64x64xf32>, %proj_b: tensor<64xf32>)
    -> tensor<1x6x6x64xf16> {
  // grid_partition(x, (3, 3))
  %x6 = poot.reshape %x : tensor<1x6x6x64xf32> -> tensor<1x3x2x3x2x64xf32>
  %xp = poot.transpose %x6 {perm = array<i64: 0, 2, 4, 1, 3, 5>} : tensor<1x3x2x3x2x64xf32>
  %win = poot.reshape %xp : tensor<1x2x2x3x3x64xf32> -> tensor<4x3x3x64xf32>
  // self.qkv(x) under autocast: input, weight and bias cast to f16
  %xh = poot.convert %win : tensor<4x3x3x64xf32> -> tensor<4x3x3x64xf16>
  %wh = poot.convert %qkv_w : tensor<192x64xf32> -> tensor<192x64xf16>
  %bh = poot.convert %qkv_b : tensor<192xf32> -> tensor<192xf16>
  %wt = poot.transpose %wh {perm = array<i64: 1, 0>} : tensor<192x64xf16>
  %qkv0 = poot.matmul %xh, %wt : tensor<4x3x3x64xf16>, tensor<64x192xf16>
  %qkv1 = poot.add %qkv0, %bh : tensor<4x3x3x192xf16>, tensor<192xf16>
  // .reshape(B, -1, 3, self.num_heads, self.dim_head).transpose(1, 3).unbind(2)
  %qkv5 = poot.reshape %qkv1 : tensor<4x3x3x192xf16> -> tensor<4x9x3x2x32xf16>
  %qkvt = poot.transpose %qkv5 {perm = array<i64: 0, 3, 2, 1, 4>} : tensor<4x9x3x2x32xf16>
  %q5 = poot.slice %qkvt {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 4, 2, 1, 9, 32>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<4x2x3x9x32xf16>
  %k5 = poot.slice %qkvt {start = array<i64: 0, 0, 1, 0, 0>, limit = array<i64: 4, 2, 2, 9, 32>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<4x2x3x9x32xf16>
  %v5 = poot.slice %qkvt {start = array<i64: 0, 0, 2, 0, 0>, limit = array<i64: 4, 2, 3, 9, 32>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<4x2x3x9x32xf16>
  %q = poot.reshape %q5 : tensor<4x2x1x9x32xf16> -> tensor<4x2x9x32xf16>
  %k = poot.reshape %k5 : tensor<4x2x1x9x32xf16> -> tensor<4x2x9x32xf16>
  %v = poot.reshape %v5 : tensor<4x2x1x9x32xf16> -> tensor<4x2x9x32xf16>
  // q = q * self.scale; attn = q @ k.transpose(-2, -1)
  %sc = poot.constant dense<0.1767578125> : tensor<f16>
  %qs = poot.mul %q, %sc : tensor<4x2x9x32xf16>, tensor<f16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x9x32xf16>
  %attn = poot.matmul %qs, %kt : tensor<4x2x9x32xf16>, tensor<4x2x32x9xf16>
  // RelPosBiasTf.get_bias: reindex_2d_einsum_lookup, autocast f16
  %lookup = poot.constant dense<[[[0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]], [[0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0]], [[1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0]]]> : tensor<3x3x5xf32>
  %hl = poot.convert %lookup : tensor<3x3x5xf32> -> tensor<3x3x5xf16>
  %tab = poot.convert %rel_table : tensor<2x5x5xf32> -> tensor<2x5x5xf16>
  // einsum('nhw,ixh->nixw', table, height_lookup): [n w, h] . [h, i x]
  %ta = poot.transpose %tab {perm = array<i64: 0, 2, 1>} : tensor<2x5x5xf16>
  %ta2 = poot.reshape %ta : tensor<2x5x5xf16> -> tensor<10x5xf16>
  %hb = poot.transpose %hl {perm = array<i64: 2, 0, 1>} : tensor<3x3x5xf16>
  %hb2 = poot.reshape %hb : tensor<5x3x3xf16> -> tensor<5x9xf16>
  %r0 = poot.matmul %ta2, %hb2 : tensor<10x5xf16>, tensor<5x9xf16>
  %r1 = poot.reshape %r0 : tensor<10x9xf16> -> tensor<2x5x3x3xf16>
  %r = poot.transpose %r1 {perm = array<i64: 0, 2, 3, 1>} : tensor<2x5x3x3xf16>
  // einsum('nixw,jyw->nijxy', reindexed, width_lookup): [n i x, w] . [w, j y]
  %ra = poot.reshape %r : tensor<2x3x3x5xf16> -> tensor<18x5xf16>
  %wb = poot.transpose %hl {perm = array<i64: 2, 0, 1>} : tensor<3x3x5xf16>
  %wb2 = poot.reshape %wb : tensor<5x3x3xf16> -> tensor<5x9xf16>
  %b0 = poot.matmul %ra, %wb2 : tensor<18x5xf16>, tensor<5x9xf16>
  %b1 = poot.reshape %b0 : tensor<18x9xf16> -> tensor<2x3x3x3x3xf16>
  %b2 = poot.transpose %b1 {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<2x3x3x3x3xf16>
  %bias = poot.reshape %b2 : tensor<2x3x3x3x3xf16> -> tensor<2x9x9xf16>
  // attn + self.get_bias()
  %ab = poot.add %attn, %bias : tensor<4x2x9x9xf16>, tensor<2x9x9xf16>
  // attn.softmax(dim=-1): f32 under autocast
  %af = poot.convert %ab : tensor<4x2x9x9xf16> -> tensor<4x2x9x9xf32>
  %m = poot.reduce_max %af {axis = 3 : i64, keepdim} : tensor<4x2x9x9xf32>
  %d = poot.sub %af, %m : tensor<4x2x9x9xf32>, tensor<4x2x9x1xf32>
  %e = poot.exp %d : tensor<4x2x9x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<4x2x9x9xf32>
  %p = poot.div %e, %z : tensor<4x2x9x9xf32>, tensor<4x2x9x1xf32>
  // x = attn @ v: autocast casts the weights back to f16
  %ph = poot.convert %p : tensor<4x2x9x9xf32> -> tensor<4x2x9x9xf16>
  %o = poot.matmul %ph, %v : tensor<4x2x9x9xf16>, tensor<4x2x9x32xf16>
  // x.transpose(1, 2).reshape(restore_shape + (-1,)); self.proj(x)
  %o1 = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<4x2x9x32xf16>
  %o2 = poot.reshape %o1 : tensor<4x9x2x32xf16> -> tensor<4x3x3x64xf16>
  %pwh = poot.convert %proj_w : tensor<64x64xf32> -> tensor<64x64xf16>
  %pbh = poot.convert %proj_b : tensor<64xf32> -> tensor<64xf16>
  %pwt = poot.transpose %pwh {perm = array<i64: 1, 0>} : tensor<64x64xf16>
  %y0 = poot.matmul %o2, %pwt : tensor<4x3x3x64xf16>, tensor<64x64xf16>
  %y1 = poot.add %y0, %pbh : tensor<4x3x3x64xf16>, tensor<64xf16>
  // grid_reverse: view(-1, H // g, W // g, g, g, C).permute(0, 3, 1, 4, 2, 5).view(-1, H, W, C)
  %g6 = poot.reshape %y1 : tensor<4x3x3x64xf16> -> tensor<1x2x2x3x3x64xf16>
  %gp = poot.transpose %g6 {perm = array<i64: 0, 3, 1, 4, 2, 5>} : tensor<1x2x2x3x3x64xf16>
  %y = poot.reshape %gp : tensor<1x3x2x3x2x64xf16> -> tensor<1x6x6x64xf16>
  return %y : tensor<1x6x6x64xf16>
}
