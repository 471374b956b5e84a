// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// CompVis latent diffusion / Stable Diffusion v1 (CompVis/stable-diffusion
// ldm/modules/attention.py, CrossAttention.forward) with a context mask:
// q, k, v rearranged 'b n (h d) -> (b h) n d'; sim = einsum('b i d, b j d ->
// b i j', q, k) * scale; mask = rearrange(mask, 'b ... -> b (...)');
// max_neg_value = -finfo(f32).max; mask = repeat(mask, 'b j -> (b h) () j')
// (the [B, m] key mask copied for every head of the flattened batch);
// sim.masked_fill_(~mask, max_neg_value); sim.softmax(dim=-1); einsum('b i j,
// b j d -> b i d', attn, v); rearrange '(b h) n d -> b n (h d)'. B = 2,
// h = 4, d = 16, n = 6 queries, m = 8 context tokens, f32.

// The einsum over the flattened (b h) batch is taken on the [b, h] operands
// it was merged from, and the repeated key mask is read back as the [B, m]
// mask broadcast over the heads: one mask per batch row, [2, 1, 6, 8].
// CHECK-LABEL: func.func @ldm_crossattention_repeat_mask_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x6x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; the select fill -3.40282e+38 absorbs every score, so it is the additive mask of that fill
func.func @ldm_crossattention_repeat_mask_f32(%xq: tensor<2x6x64xf32>, %ck: tensor<2x8x64xf32>,
                                              %cv: tensor<2x8x64xf32>, %mask: tensor<2x8xi1>)
    -> tensor<2x6x64xf32> {
  %q4 = poot.reshape %xq : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %qt = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %q = poot.reshape %qt : tensor<2x4x6x16xf32> -> tensor<8x6x16xf32>
  %k4 = poot.reshape %ck : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %kt4 = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %k = poot.reshape %kt4 : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %v4 = poot.reshape %cv : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %vt4 = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %v = poot.reshape %vt4 : tensor<2x4x8x16xf32> -> tensor<8x8x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<8x8x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<8x6x16xf32>, tensor<8x16x8xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %sim = poot.mul %s0, %sc : tensor<8x6x8xf32>, tensor<f32>
  %m4 = poot.reshape %mask : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
  %mb = poot.broadcast %m4 {shape = array<i64: 2, 4, 1, 8>} : tensor<2x1x1x8xi1>
  %mr = poot.reshape %mb : tensor<2x4x1x8xi1> -> tensor<8x1x8xi1>
  %nm = poot.not %mr : tensor<8x1x8xi1>
  %neg = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %nm, %neg, %sim : tensor<8x1x8xi1>, tensor<f32>, tensor<8x6x8xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<8x6x8xf32>
  %d = poot.sub %sm, %m : tensor<8x6x8xf32>, tensor<8x6x1xf32>
  %e = poot.exp %d : tensor<8x6x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x6x8xf32>
  %p = poot.div %e, %z : tensor<8x6x8xf32>, tensor<8x6x1xf32>
  %out = poot.matmul %p, %v : tensor<8x6x8xf32>, tensor<8x8x16xf32>
  %o4 = poot.reshape %out : tensor<8x6x16xf32> -> tensor<2x4x6x16xf32>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x16xf32>
  %o = poot.reshape %ot : tensor<2x6x4x16xf32> -> tensor<2x6x64xf32>
  return %o : tensor<2x6x64xf32>
}
