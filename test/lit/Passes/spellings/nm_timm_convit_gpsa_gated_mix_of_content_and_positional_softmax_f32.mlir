// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, timm ConViT (huggingface/pytorch-image-models,
// timm/models/convit.py), GPSA (gated positional self-attention)
// .get_attention and .forward, f32: qk = self.qk(x) (no bias)
// .reshape(B, N, 2, heads, head_dim).permute(2, 0, 3, 1, 4); q, k =
// qk.unbind(0); pos_score = self.pos_proj(self.rel_indices.expand(B, -1,
// -1, -1)).permute(0, 3, 1, 2) (rel_indices: the [1, N, N, 3] buffer of
// get_rel_indices, (dx, dy, dx^2 + dy^2) between patches of a 3 x 3 grid;
// pos_proj a Linear(3, heads)); patch_score = (q @ k.transpose(-2, -1)) *
// scale; patch_score.softmax(dim=-1); pos_score.softmax(dim=-1); gating =
// gating_param.view(1, -1, 1, 1); attn = (1. - sigmoid(gating)) *
// patch_score + sigmoid(gating) * pos_score; attn /= attn.sum(dim=-1)
// .unsqueeze(-1); then v = self.v(x).reshape(B, N, heads, head_dim)
// .permute(0, 2, 1, 3); (attn @ v).transpose(1, 2).reshape(B, N, C).
// torch.sigmoid spelled 1 / (1 + exp(-x)). B = 2, N = 9 patches, C = 32,
// 2 heads of 16.
//
// The weights are a per-head convex mix of the content softmax and a
// positional softmax, renormalised: no single softmax of q . k plus a mask
// gives them (the positional part is not added to the scores inside one
// exponential, it is mixed after both softmaxes). Fusing the content
// softmax with v would drop the positional half; must decline, with no
// poot.attention at all.

// CHECK-LABEL: func.func @nm_timm_convit_gpsa_gated_mix_of_content_and_positional_softmax_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN: remark: attention declined: the numerator is not an exp{{$}}
func.func @nm_timm_convit_gpsa_gated_mix_of_content_and_positional_softmax_f32(
    %x: tensor<2x9x32xf32>, %qk_w_t: tensor<32x64xf32>, %v_w_t: tensor<32x32xf32>,
    %pos_proj_w_t: tensor<3x2xf32>, %pos_proj_b: tensor<2xf32>, %gating_param: tensor<2xf32>)
    -> tensor<2x9x32xf32> {
  %rel_indices = poot.constant dense<[[[[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [2.0, 0.0, 4.0], [0.0, 1.0, 1.0], [1.0, 1.0, 2.0], [2.0, 1.0, 5.0], [0.0, 2.0, 4.0], [1.0, 2.0, 5.0], [2.0, 2.0, 8.0]], [[-1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [-1.0, 1.0, 2.0], [0.0, 1.0, 1.0], [1.0, 1.0, 2.0], [-1.0, 2.0, 5.0], [0.0, 2.0, 4.0], [1.0, 2.0, 5.0]], [[-2.0, 0.0, 4.0], [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [-2.0, 1.0, 5.0], [-1.0, 1.0, 2.0], [0.0, 1.0, 1.0], [-2.0, 2.0, 8.0], [-1.0, 2.0, 5.0], [0.0, 2.0, 4.0]], [[0.0, -1.0, 1.0], [1.0, -1.0, 2.0], [2.0, -1.0, 5.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [2.0, 0.0, 4.0], [0.0, 1.0, 1.0], [1.0, 1.0, 2.0], [2.0, 1.0, 5.0]], [[-1.0, -1.0, 2.0], [0.0, -1.0, 1.0], [1.0, -1.0, 2.0], [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [-1.0, 1.0, 2.0], [0.0, 1.0, 1.0], [1.0, 1.0, 2.0]], [[-2.0, -1.0, 5.0], [-1.0, -1.0, 2.0], [0.0, -1.0, 1.0], [-2.0, 0.0, 4.0], [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [-2.0, 1.0, 5.0], [-1.0, 1.0, 2.0], [0.0, 1.0, 1.0]], [[0.0, -2.0, 4.0], [1.0, -2.0, 5.0], [2.0, -2.0, 8.0], [0.0, -1.0, 1.0], [1.0, -1.0, 2.0], [2.0, -1.0, 5.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [2.0, 0.0, 4.0]], [[-1.0, -2.0, 5.0], [0.0, -2.0, 4.0], [1.0, -2.0, 5.0], [-1.0, -1.0, 2.0], [0.0, -1.0, 1.0], [1.0, -1.0, 2.0], [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]], [[-2.0, -2.0, 8.0], [-1.0, -2.0, 5.0], [0.0, -2.0, 4.0], [-2.0, -1.0, 5.0], [-1.0, -1.0, 2.0], [0.0, -1.0, 1.0], [-2.0, 0.0, 4.0], [-1.0, 0.0, 1.0], [0.0, 0.0, 0.0]]]]> : tensor<1x9x9x3xf32>
  // qk = self.qk(x).reshape(B, N, 2, heads, head_dim).permute(2, 0, 3, 1, 4); q, k = qk.unbind(0)
  %qk0 = poot.matmul %x, %qk_w_t : tensor<2x9x32xf32>, tensor<32x64xf32>
  %qk5 = poot.reshape %qk0 : tensor<2x9x64xf32> -> tensor<2x9x2x2x16xf32>
  %qk = poot.transpose %qk5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<2x9x2x2x16xf32>
  %q5 = poot.slice %qk {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x2x2x9x16xf32>
  %k5 = poot.slice %qk {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 2, 2, 9, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<2x2x2x9x16xf32>
  %q = poot.reshape %q5 : tensor<1x2x2x9x16xf32> -> tensor<2x2x9x16xf32>
  %k = poot.reshape %k5 : tensor<1x2x2x9x16xf32> -> tensor<2x2x9x16xf32>
  // pos_score = self.pos_proj(self.rel_indices.expand(B, -1, -1, -1)).permute(0, 3, 1, 2)
  %ri = poot.broadcast %rel_indices {shape = array<i64: 2, 9, 9, 3>} : tensor<1x9x9x3xf32>
  %pp0 = poot.matmul %ri, %pos_proj_w_t : tensor<2x9x9x3xf32>, tensor<3x2xf32>
  %pp1 = poot.add %pp0, %pos_proj_b : tensor<2x9x9x2xf32>, tensor<2xf32>
  %pos = poot.transpose %pp1 {perm = array<i64: 0, 3, 1, 2>} : tensor<2x9x9x2xf32>
  // patch_score = (q @ k.transpose(-2, -1)) * self.scale; softmax(dim=-1)
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x9x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x9x16xf32>, tensor<2x2x16x9xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %sc : tensor<2x2x9x9xf32>, tensor<f32>
  %sm = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %sd = poot.sub %s, %sm : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  %se = poot.exp %sd : tensor<2x2x9x9xf32>
  %sz = poot.reduce_sum %se {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %patch = poot.div %se, %sz : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  // pos_score.softmax(dim=-1)
  %pm = poot.reduce_max %pos {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %pd = poot.sub %pos, %pm : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  %pe = poot.exp %pd : tensor<2x2x9x9xf32>
  %pz = poot.reduce_sum %pe {axis = 3 : i64, keepdim} : tensor<2x2x9x9xf32>
  %pos_p = poot.div %pe, %pz : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  // gating = self.gating_param.view(1, -1, 1, 1); sigmoid(gating) = 1 / (1 + exp(-gating))
  %g4 = poot.reshape %gating_param : tensor<2xf32> -> tensor<1x2x1x1xf32>
  %gn = poot.neg %g4 : tensor<1x2x1x1xf32>
  %ge = poot.exp %gn : tensor<1x2x1x1xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %g1 = poot.add %ge, %one : tensor<1x2x1x1xf32>, tensor<f32>
  %sig = poot.div %one, %g1 : tensor<f32>, tensor<1x2x1x1xf32>
  // attn = (1. - sigmoid(gating)) * patch_score + sigmoid(gating) * pos_score
  %omg = poot.sub %one, %sig : tensor<f32>, tensor<1x2x1x1xf32>
  %a1 = poot.mul %omg, %patch : tensor<1x2x1x1xf32>, tensor<2x2x9x9xf32>
  %a2 = poot.mul %sig, %pos_p : tensor<1x2x1x1xf32>, tensor<2x2x9x9xf32>
  %a3 = poot.add %a1, %a2 : tensor<2x2x9x9xf32>, tensor<2x2x9x9xf32>
  // attn /= attn.sum(dim=-1).unsqueeze(-1)
  %as = poot.reduce_sum %a3 {axis = 3 : i64} : tensor<2x2x9x9xf32>
  %as4 = poot.reshape %as : tensor<2x2x9xf32> -> tensor<2x2x9x1xf32>
  %attn = poot.div %a3, %as4 : tensor<2x2x9x9xf32>, tensor<2x2x9x1xf32>
  // v = self.v(x).reshape(B, N, heads, head_dim).permute(0, 2, 1, 3); (attn @ v).transpose(1, 2).reshape(B, N, C)
  %v0 = poot.matmul %x, %v_w_t : tensor<2x9x32xf32>, tensor<32x32xf32>
  %v4 = poot.reshape %v0 : tensor<2x9x32xf32> -> tensor<2x9x2x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x9x2x16xf32>
  %o = poot.matmul %attn, %v : tensor<2x2x9x9xf32>, tensor<2x2x9x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x9x16xf32>
  %out = poot.reshape %ot : tensor<2x9x2x16xf32> -> tensor<2x9x32xf32>
  return %out : tensor<2x9x32xf32>
}
