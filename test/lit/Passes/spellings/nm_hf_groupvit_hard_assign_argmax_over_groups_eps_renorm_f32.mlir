// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, HF transformers GroupViT (models/groupvit/modeling_groupvit.py,
// GroupViTAssignAttention.forward in eval, get_attn(gumbel=True, hard=True)
// -> hard_softmax(raw_attn, dim=-2)), f32: raw_attn = (q_proj(group_tokens)
// @ k_proj(image_tokens)^T) * hidden_size**-0.5; y_soft = softmax over
// dim=-2, the GROUPS (the query axis: each image token is assigned to one
// group); index = y_soft.max(dim=-2, keepdim=True)[1] and y_hard =
// zeros_like(...).scatter_(-2, index, 1.0) (a one-hot of the first argmax,
// written here as the lowest group index reaching the max); the
// straight-through ret = y_hard - y_soft.detach() + y_soft; then attn =
// attn / (attn.sum(dim=-1, keepdim=True) + assign_eps) with assign_eps =
// 1.0; out = attn @ v_proj(image_tokens). Hard assignments renormalised
// over the keys with an eps: no softmax over the keys at all; must not
// fuse. B = 1, 4 groups, 8 image tokens, hidden 16 (a single head).

// CHECK-LABEL: func.func @nm_hf_groupvit_hard_assign_argmax_over_groups_eps_renorm_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN-NOT: remark: attention fused
func.func @nm_hf_groupvit_hard_assign_argmax_over_groups_eps_renorm_f32(
    %gt: tensor<1x4x16xf32>, %it: tensor<1x8x16xf32>,
    %wq: tensor<16x16xf32>, %bq: tensor<16xf32>, %wk: tensor<16x16xf32>, %bk: tensor<16xf32>,
    %wv: tensor<16x16xf32>, %bv: tensor<16xf32>) -> tensor<1x4x16xf32> {
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<16x16xf32>
  %q0 = poot.matmul %gt, %wqt : tensor<1x4x16xf32>, tensor<16x16xf32>
  %q = poot.add %q0, %bq : tensor<1x4x16xf32>, tensor<16xf32>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<16x16xf32>
  %k0 = poot.matmul %it, %wkt : tensor<1x8x16xf32>, tensor<16x16xf32>
  %k = poot.add %k0, %bk : tensor<1x8x16xf32>, tensor<16xf32>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<16x16xf32>
  %v0 = poot.matmul %it, %wvt : tensor<1x8x16xf32>, tensor<16x16xf32>
  %v = poot.add %v0, %bv : tensor<1x8x16xf32>, tensor<16xf32>
  // raw_attn = (query @ key.transpose(-2, -1)) * self.scale
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<1x8x16xf32>
  %r0 = poot.matmul %q, %kt : tensor<1x4x16xf32>, tensor<1x16x8xf32>
  %sc = poot.constant dense<2.500000e-01> : tensor<f32>
  %raw = poot.mul %r0, %sc : tensor<1x4x8xf32>, tensor<f32>
  // hard_softmax(raw_attn, dim=-2): y_soft = logits.softmax(dim)
  %mx = poot.reduce_max %raw {axis = 1 : i64, keepdim} : tensor<1x4x8xf32>
  %d = poot.sub %raw, %mx : tensor<1x4x8xf32>, tensor<1x1x8xf32>
  %e = poot.exp %d : tensor<1x4x8xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<1x4x8xf32>
  %ys = poot.div %e, %z : tensor<1x4x8xf32>, tensor<1x1x8xf32>
  // index = y_soft.max(dim, keepdim=True)[1]; y_hard = zeros.scatter_(dim, index, 1.0)
  %ym = poot.reduce_max %ys {axis = 1 : i64, keepdim} : tensor<1x4x8xf32>
  %ismax = poot.compare eq, %ys, %ym : tensor<1x4x8xf32>, tensor<1x1x8xf32>
  %gi = poot.iota {dim = 1 : i64} : tensor<1x4x8xi32>
  %ng = poot.constant dense<4> : tensor<i32>
  %cand = poot.select %ismax, %gi, %ng : tensor<1x4x8xi1>, tensor<1x4x8xi32>, tensor<i32>
  %idx = poot.reduce_min %cand {axis = 1 : i64, keepdim} : tensor<1x4x8xi32>
  %hot = poot.compare eq, %gi, %idx : tensor<1x4x8xi32>, tensor<1x1x8xi32>
  %yh = poot.convert %hot : tensor<1x4x8xi1> -> tensor<1x4x8xf32>
  // ret = y_hard - y_soft.detach() + y_soft
  %r1 = poot.sub %yh, %ys : tensor<1x4x8xf32>, tensor<1x4x8xf32>
  %ret = poot.add %r1, %ys : tensor<1x4x8xf32>, tensor<1x4x8xf32>
  // attn = attn / (attn.sum(dim=-1, keepdim=True) + self.assign_eps)
  %rs = poot.reduce_sum %ret {axis = 2 : i64, keepdim} : tensor<1x4x8xf32>
  %aeps = poot.constant dense<1.000000e+00> : tensor<f32>
  %den = poot.add %rs, %aeps : tensor<1x4x1xf32>, tensor<f32>
  %attn = poot.div %ret, %den : tensor<1x4x8xf32>, tensor<1x4x1xf32>
  // out = attn @ value
  %o = poot.matmul %attn, %v : tensor<1x4x8xf32>, tensor<1x8x16xf32>
  return %o : tensor<1x4x16xf32>
}
