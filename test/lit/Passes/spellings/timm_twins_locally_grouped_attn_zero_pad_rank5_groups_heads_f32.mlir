// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// timm Twins-SVT (timm/models/twins.py, LocallyGroupedAttn.forward, the
// "LSA" layer), f32, with fused_attn off (TIMM_FUSED_ATTN=0, as for
// export): x.view(B, H, W, C); the image is zero padded to a multiple of
// the window, F.pad(x, (0, 0, 0, pad_r, 0, pad_b)) (the forward_padding
// variant: no mask, the padded tokens are attended like any other); x
// .reshape(B, _h, ws, _w, ws, C).transpose(2, 3); qkv = Linear(C, 3C,
// bias) on that 6-d tensor, .reshape(B, _h * _w, ws * ws, 3, heads,
// C // heads).permute(3, 0, 1, 4, 2, 5).unbind(0): q, k, v of rank 5,
// [B, groups, heads, ws * ws, hd]; q = q * self.scale; attn = q @
// k.transpose(-2, -1); attn.softmax(dim=-1); x = attn @ v; x.transpose(2,
// 3).reshape(B, _h, _w, ws, ws, C).transpose(2, 3).reshape(B, _h * ws,
// _w * ws, C); the padding sliced off, x[:, :H, :W, :]; reshape(B, N, C);
// proj. A 5 x 5 stage with ws = 3: padded to 6 x 6, 4 groups of 9 tokens;
// B = 1, C = 32, 2 heads of 16.
//
// Strongest form: one attention over the groups taken as batch rows
// ([B * groups, heads, 9, 16]: each (group, head) has its own keys): no
// mask (the zero-padded tokens are real keys here: their k and v are the
// qkv bias), n_rep 1, scale 16^-0.5 = 0.25 taken from q.

// The batch and window-group dims [B, groups] are merged into one batch
// axis; the heads stay the heads.
// CHECK-LABEL: func.func @timm_twins_locally_grouped_attn_zero_pad_rank5_groups_heads_f32
// CHECK: poot.attention %{{.*}}, %{{.*}}, %{{.*}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32>, tensor<4x2x9x16xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @timm_twins_locally_grouped_attn_zero_pad_rank5_groups_heads_f32(
    %x: tensor<1x25x32xf32>, %qkv_w: tensor<96x32xf32>, %qkv_b: tensor<96xf32>,
    %proj_w: tensor<32x32xf32>, %proj_b: tensor<32xf32>) -> tensor<1x25x32xf32> {
  // x = x.view(B, H, W, C); F.pad(x, (0, 0, pad_l, pad_r, pad_t, pad_b)), pad_r = pad_b = 1
  %x4 = poot.reshape %x : tensor<1x25x32xf32> -> tensor<1x5x5x32xf32>
  %zr = poot.constant dense<0.0> : tensor<1x5x1x32xf32>
  %xw = poot.concat %x4, %zr {axis = 2 : i64} : tensor<1x5x5x32xf32>, tensor<1x5x1x32xf32>
  %zb = poot.constant dense<0.0> : tensor<1x1x6x32xf32>
  %xp = poot.concat %xw, %zb {axis = 1 : i64} : tensor<1x5x6x32xf32>, tensor<1x1x6x32xf32>
  // x.reshape(B, _h, ws, _w, ws, C).transpose(2, 3)
  %x6 = poot.reshape %xp : tensor<1x6x6x32xf32> -> tensor<1x2x3x2x3x32xf32>
  %xg = poot.transpose %x6 {perm = array<i64: 0, 1, 3, 2, 4, 5>} : tensor<1x2x3x2x3x32xf32>
  // self.qkv(x)
  %wt = poot.transpose %qkv_w {perm = array<i64: 1, 0>} : tensor<96x32xf32>
  %qkv0 = poot.matmul %xg, %wt : tensor<1x2x2x3x3x32xf32>, tensor<32x96xf32>
  %qkv1 = poot.add %qkv0, %qkv_b : tensor<1x2x2x3x3x96xf32>, tensor<96xf32>
  // .reshape(B, _h * _w, ws * ws, 3, heads, C // heads).permute(3, 0, 1, 4, 2, 5)
  %qkv6 = poot.reshape %qkv1 : tensor<1x2x2x3x3x96xf32> -> tensor<1x4x9x3x2x16xf32>
  %qkvp = poot.transpose %qkv6 {perm = array<i64: 3, 0, 1, 4, 2, 5>} : tensor<1x4x9x3x2x16xf32>
  // q, k, v = qkv.unbind(0)
  %q6 = poot.slice %qkvp {start = array<i64: 0, 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<3x1x4x2x9x16xf32>
  %k6 = poot.slice %qkvp {start = array<i64: 1, 0, 0, 0, 0, 0>, limit = array<i64: 2, 1, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<3x1x4x2x9x16xf32>
  %v6 = poot.slice %qkvp {start = array<i64: 2, 0, 0, 0, 0, 0>, limit = array<i64: 3, 1, 4, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<3x1x4x2x9x16xf32>
  %q = poot.reshape %q6 : tensor<1x1x4x2x9x16xf32> -> tensor<1x4x2x9x16xf32>
  %k = poot.reshape %k6 : tensor<1x1x4x2x9x16xf32> -> tensor<1x4x2x9x16xf32>
  %v = poot.reshape %v6 : tensor<1x1x4x2x9x16xf32> -> tensor<1x4x2x9x16xf32>
  // q = q * self.scale; attn = q @ k.transpose(-2, -1)
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<1x4x2x9x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x4x2x9x16xf32>
  %attn = poot.matmul %qs, %kt : tensor<1x4x2x9x16xf32>, tensor<1x4x2x16x9xf32>
  // attn.softmax(dim=-1)
  %m = poot.reduce_max %attn {axis = 4 : i64, keepdim} : tensor<1x4x2x9x9xf32>
  %d = poot.sub %attn, %m : tensor<1x4x2x9x9xf32>, tensor<1x4x2x9x1xf32>
  %e = poot.exp %d : tensor<1x4x2x9x9xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x4x2x9x9xf32>
  %p = poot.div %e, %z : tensor<1x4x2x9x9xf32>, tensor<1x4x2x9x1xf32>
  // x = attn @ v
  %o = poot.matmul %p, %v : tensor<1x4x2x9x9xf32>, tensor<1x4x2x9x16xf32>
  // x.transpose(2, 3).reshape(B, _h, _w, ws, ws, C)
  %o1 = poot.transpose %o {perm = array<i64: 0, 1, 3, 2, 4>} : tensor<1x4x2x9x16xf32>
  %o2 = poot.reshape %o1 : tensor<1x4x9x2x16xf32> -> tensor<1x2x2x3x3x32xf32>
  // x.transpose(2, 3).reshape(B, _h * ws, _w * ws, C)
  %o3 = poot.transpose %o2 {perm = array<i64: 0, 1, 3, 2, 4, 5>} : tensor<1x2x2x3x3x32xf32>
  %o4 = poot.reshape %o3 : tensor<1x2x3x2x3x32xf32> -> tensor<1x6x6x32xf32>
  // x = x[:, :H, :W, :].contiguous(); x.reshape(B, N, C)
  %o5 = poot.slice %o4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 5, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x6x32xf32>
  %o6 = poot.reshape %o5 : tensor<1x5x5x32xf32> -> tensor<1x25x32xf32>
  // x = self.proj(x)
  %pwt = poot.transpose %proj_w {perm = array<i64: 1, 0>} : tensor<32x32xf32>
  %y0 = poot.matmul %o6, %pwt : tensor<1x25x32xf32>, tensor<32x32xf32>
  %y = poot.add %y0, %proj_b : tensor<1x25x32xf32>, tensor<32xf32>
  return %y : tensor<1x25x32xf32>
}
