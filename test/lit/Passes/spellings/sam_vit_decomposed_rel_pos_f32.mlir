// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Segment Anything image encoder (facebookresearch/segment-anything
// segment_anything/modeling/image_encoder.py, Attention.forward with
// use_rel_pos): qkv.reshape(B, H*W, 3, nH, -1).permute(2, 0, 3, 1, 4)
// .reshape(3, B*nH, H*W, -1).unbind(0); attn = (q * scale) @ k^T;
// add_decomposed_rel_pos: Rh = rel_pos_h[relative_coords.long()] with
// relative_coords = (arange(q)[:, None] * 1.0 - arange(k)[None] * 1.0) +
// (k - 1) * 1.0 (get_rel_pos, no interpolation), likewise Rw; r_q =
// q.reshape(B*nH, q_h, q_w, C) (the unscaled q); rel_h = einsum("bhwc,hkc->
// bhwk", r_q, Rh), rel_w = einsum("bhwc,wkc->bhwk", r_q, Rw); attn =
// (attn.view(B*nH, q_h, q_w, k_h, k_w) + rel_h[..., None] +
// rel_w[..., None, :]).view(B*nH, q_h*q_w, k_h*k_w); softmax(dim=-1);
// (attn @ v).view(B, nH, H, W, -1).permute(0, 2, 3, 1, 4).reshape(B, H, W,
// -1). A 4x4 window (16 tokens), nH = 2, head 16, B = 1, f32.

// Strongest form the graph allows: the view [B*nH, q_h, q_w, k_h, k_w] taken
// to add rel_h and rel_w and undone after is dropped, the two terms
// broadcast to one [B*nH, Q, K] bias in the scores' layout (a bias, so a
// tensor mask).
// CHECK-LABEL: func.func @sam_vit_decomposed_rel_pos_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x2x16x16xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x2x16x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @sam_vit_decomposed_rel_pos_f32(%qkv: tensor<1x16x96xf32>, %rel_pos_h: tensor<7x16xf32>,
                                          %rel_pos_w: tensor<7x16xf32>) -> tensor<1x4x4x32xf32> {
  %r5 = poot.reshape %qkv : tensor<1x16x96xf32> -> tensor<1x16x3x2x16xf32>
  %p5 = poot.transpose %r5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<1x16x3x2x16xf32>
  %r4 = poot.reshape %p5 : tensor<3x1x2x16x16xf32> -> tensor<3x2x16x16xf32>
  %q3 = poot.slice %r4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 16, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x2x16x16xf32>
  %k3 = poot.slice %r4 {start = array<i64: 1, 0, 0, 0>, limit = array<i64: 2, 2, 16, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x2x16x16xf32>
  %v3 = poot.slice %r4 {start = array<i64: 2, 0, 0, 0>, limit = array<i64: 3, 2, 16, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x2x16x16xf32>
  %q = poot.reshape %q3 : tensor<1x2x16x16xf32> -> tensor<2x16x16xf32>
  %k = poot.reshape %k3 : tensor<1x2x16x16xf32> -> tensor<2x16x16xf32>
  %v = poot.reshape %v3 : tensor<1x2x16x16xf32> -> tensor<2x16x16xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<2x16x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x16x16xf32>
  %attn = poot.matmul %qs, %kt : tensor<2x16x16xf32>, tensor<2x16x16xf32>
  // get_rel_pos(4, 4, rel_pos): coordinates as floats, then .long()
  %ia = poot.iota {dim = 0 : i64} : tensor<4x1xi64>
  %ja = poot.iota {dim = 1 : i64} : tensor<1x4xi64>
  %iaf = poot.convert %ia : tensor<4x1xi64> -> tensor<4x1xf32>
  %jaf = poot.convert %ja : tensor<1x4xi64> -> tensor<1x4xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %qc = poot.mul %iaf, %one : tensor<4x1xf32>, tensor<f32>
  %kc = poot.mul %jaf, %one : tensor<1x4xf32>, tensor<f32>
  %dq = poot.sub %qc, %kc : tensor<4x1xf32>, tensor<1x4xf32>
  %three = poot.constant dense<3.0> : tensor<f32>
  %rc = poot.add %dq, %three : tensor<4x4xf32>, tensor<f32>
  %ri = poot.convert %rc : tensor<4x4xf32> -> tensor<4x4xi64>
  %Rh = poot.gather %rel_pos_h[%ri] {axis = 0 : i64} : tensor<7x16xf32>, tensor<4x4xi64>
  %Rw = poot.gather %rel_pos_w[%ri] {axis = 0 : i64} : tensor<7x16xf32>, tensor<4x4xi64>
  %rq = poot.reshape %q : tensor<2x16x16xf32> -> tensor<2x4x4x16xf32>
  // rel_h = einsum("bhwc,hkc->bhwk"): batch over h
  %rqh = poot.transpose %rq {perm = array<i64: 1, 0, 2, 3>} : tensor<2x4x4x16xf32>
  %rqh3 = poot.reshape %rqh : tensor<4x2x4x16xf32> -> tensor<4x8x16xf32>
  %Rht = poot.transpose %Rh {perm = array<i64: 0, 2, 1>} : tensor<4x4x16xf32>
  %relh3 = poot.matmul %rqh3, %Rht : tensor<4x8x16xf32>, tensor<4x16x4xf32>
  %relh4 = poot.reshape %relh3 : tensor<4x8x4xf32> -> tensor<4x2x4x4xf32>
  %relh = poot.transpose %relh4 {perm = array<i64: 1, 0, 2, 3>} : tensor<4x2x4x4xf32>
  // rel_w = einsum("bhwc,wkc->bhwk"): batch over w
  %rqw = poot.transpose %rq {perm = array<i64: 2, 0, 1, 3>} : tensor<2x4x4x16xf32>
  %rqw3 = poot.reshape %rqw : tensor<4x2x4x16xf32> -> tensor<4x8x16xf32>
  %Rwt = poot.transpose %Rw {perm = array<i64: 0, 2, 1>} : tensor<4x4x16xf32>
  %relw3 = poot.matmul %rqw3, %Rwt : tensor<4x8x16xf32>, tensor<4x16x4xf32>
  %relw4 = poot.reshape %relw3 : tensor<4x8x4xf32> -> tensor<4x2x4x4xf32>
  %relw = poot.transpose %relw4 {perm = array<i64: 1, 2, 0, 3>} : tensor<4x2x4x4xf32>
  %a5 = poot.reshape %attn : tensor<2x16x16xf32> -> tensor<2x4x4x4x4xf32>
  %relh5 = poot.reshape %relh : tensor<2x4x4x4xf32> -> tensor<2x4x4x4x1xf32>
  %relw5 = poot.reshape %relw : tensor<2x4x4x4xf32> -> tensor<2x4x4x1x4xf32>
  %s1 = poot.add %a5, %relh5 : tensor<2x4x4x4x4xf32>, tensor<2x4x4x4x1xf32>
  %s2 = poot.add %s1, %relw5 : tensor<2x4x4x4x4xf32>, tensor<2x4x4x1x4xf32>
  %s = poot.reshape %s2 : tensor<2x4x4x4x4xf32> -> tensor<2x16x16xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<2x16x16xf32>
  %d = poot.sub %s, %m : tensor<2x16x16xf32>, tensor<2x16x1xf32>
  %e = poot.exp %d : tensor<2x16x16xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x16x16xf32>
  %p = poot.div %e, %z : tensor<2x16x16xf32>, tensor<2x16x1xf32>
  %x = poot.matmul %p, %v : tensor<2x16x16xf32>, tensor<2x16x16xf32>
  %x5 = poot.reshape %x : tensor<2x16x16xf32> -> tensor<1x2x4x4x16xf32>
  %xp = poot.transpose %x5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x2x4x4x16xf32>
  %o = poot.reshape %xp : tensor<1x4x4x2x16xf32> -> tensor<1x4x4x32xf32>
  return %o : tensor<1x4x4x32xf32>
}
