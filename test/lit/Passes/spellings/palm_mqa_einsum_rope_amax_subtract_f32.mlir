// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// lucidrains/PaLM-rlhf-pytorch palm_rlhf_pytorch/palm.py
// (ParallelTransformerBlock.forward), f32: multi-query attention, q
// rearranged 'b n (h d) -> b h n d', k and v [b, n, d] with no head axis;
// rotary: positions = cat((freqs, freqs), -1), apply_rotary_pos_emb(pos, t)
// = t * pos.cos() + rotate_half(t) * pos.sin() with rotate_half as
// rearrange '... (j d) -> ... j d', j=2, unbind(-2), cat((-x2, x1), -1),
// on q ([b, h, n, d]) and on k ([b, n, d]); q = q * scale; sim =
// einsum('b h i d, b j d -> b h i j', q, k), which torch.einsum runs as a
// bmm of q viewed [b, h * i, d] against k^T and views back; causal_mask =
// ones((n, n), bool).triu(1); masked_fill(causal_mask, -finfo.max); sim =
// sim - sim.amax(dim=-1, keepdim=True).detach(); softmax(dim=-1);
// einsum('b h i j, b j d -> b h i d', attn, v) as bmm over [b, h * i, j].
// B = 1, 4 query heads, n = 6, d = 16.

// CHECK-LABEL: func.func @palm_mqa_einsum_rope_amax_subtract_f32
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal{{$}}
func.func @palm_mqa_einsum_rope_amax_subtract_f32(
    %xq: tensor<1x6x64xf32>, %k0: tensor<1x6x16xf32>, %v: tensor<1x6x16xf32>,
    %positions: tensor<6x16xf32>) -> tensor<1x4x6x16xf32> {
  %q4 = poot.reshape %xq : tensor<1x6x64xf32> -> tensor<1x6x4x16xf32>
  %q0 = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  %pcos = poot.cos %positions : tensor<6x16xf32>
  %psin = poot.sin %positions : tensor<6x16xf32>
  %qj = poot.reshape %q0 : tensor<1x4x6x16xf32> -> tensor<1x4x6x2x8xf32>
  %qu1 = poot.slice %qj {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 1, 8>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x6x2x8xf32>
  %qu2 = poot.slice %qj {start = array<i64: 0, 0, 0, 1, 0>, limit = array<i64: 1, 4, 6, 2, 8>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x6x2x8xf32>
  %qx1 = poot.reshape %qu1 : tensor<1x4x6x1x8xf32> -> tensor<1x4x6x8xf32>
  %qx2 = poot.reshape %qu2 : tensor<1x4x6x1x8xf32> -> tensor<1x4x6x8xf32>
  %qnx2 = poot.neg %qx2 : tensor<1x4x6x8xf32>
  %qrh = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x4x6x8xf32>, tensor<1x4x6x8xf32>
  %qa = poot.mul %q0, %pcos : tensor<1x4x6x16xf32>, tensor<6x16xf32>
  %qb = poot.mul %qrh, %psin : tensor<1x4x6x16xf32>, tensor<6x16xf32>
  %qr = poot.add %qa, %qb : tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32>
  %kj = poot.reshape %k0 : tensor<1x6x16xf32> -> tensor<1x6x2x8xf32>
  %ku1 = poot.slice %kj {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 6, 1, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x8xf32>
  %ku2 = poot.slice %kj {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 1, 6, 2, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x2x8xf32>
  %kx1 = poot.reshape %ku1 : tensor<1x6x1x8xf32> -> tensor<1x6x8xf32>
  %kx2 = poot.reshape %ku2 : tensor<1x6x1x8xf32> -> tensor<1x6x8xf32>
  %knx2 = poot.neg %kx2 : tensor<1x6x8xf32>
  %krh = poot.concat %knx2, %kx1 {axis = 2 : i64} : tensor<1x6x8xf32>, tensor<1x6x8xf32>
  %ka = poot.mul %k0, %pcos : tensor<1x6x16xf32>, tensor<6x16xf32>
  %kb = poot.mul %krh, %psin : tensor<1x6x16xf32>, tensor<6x16xf32>
  %kr = poot.add %ka, %kb : tensor<1x6x16xf32>, tensor<1x6x16xf32>
  %scale = poot.constant dense<0.25> : tensor<f32>
  %q = poot.mul %qr, %scale : tensor<1x4x6x16xf32>, tensor<f32>
  // einsum('b h i d, b j d -> b h i j') as bmm over [b, h * i, d]
  %q3 = poot.reshape %q : tensor<1x4x6x16xf32> -> tensor<1x24x16xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 2, 1>} : tensor<1x6x16xf32>
  %s3 = poot.matmul %q3, %kt : tensor<1x24x16xf32>, tensor<1x16x6xf32>
  %sim = poot.reshape %s3 : tensor<1x24x6xf32> -> tensor<1x4x6x6xf32>
  // causal_mask = ones((n, n), bool).triu(1)
  %ri = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %dji = poot.sub %ci, %ri : tensor<6x6xi32>, tensor<6x6xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %causal = poot.compare ge, %dji, %one : tensor<6x6xi32>, tensor<i32>
  %fmax = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %causal, %fmax, %sim : tensor<6x6xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  // sim - sim.amax(-1).detach(), then softmax
  %am = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %sd = poot.sub %sm, %am : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %mx = poot.reduce_max %sd {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %sd, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %attn = poot.div %e, %zs : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  // einsum('b h i j, b j d -> b h i d') as bmm over [b, h * i, j]
  %a3 = poot.reshape %attn : tensor<1x4x6x6xf32> -> tensor<1x24x6xf32>
  %o3 = poot.matmul %a3, %v : tensor<1x24x6xf32>, tensor<1x6x16xf32>
  %out = poot.reshape %o3 : tensor<1x24x16xf32> -> tensor<1x4x6x16xf32>
  return %out : tensor<1x4x6x16xf32>
}
