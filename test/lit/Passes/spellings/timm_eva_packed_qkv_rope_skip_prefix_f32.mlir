// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// huggingface/pytorch-image-models timm/models/eva.py (EvaAttention
// .forward, fused_attn=False) with a RotaryEmbeddingCat table, f32: qkv =
// F.linear(x, qkv.weight, qkv_bias) reshaped [B, N, 3, H, -1] and
// permute(2, 0, 3, 1, 4), unbind(0); rope skips the num_prefix_tokens = 1
// class token: q = cat([q[:, :, :1], apply_rot_embed_cat(q[:, :, 1:],
// rope)], dim=2).type_as(v), k likewise; apply_rot_embed_cat splits the
// table into sin, cos (tensor_split(2, -1)) and computes x * cos + rot(x) *
// sin with rot(x) = stack([-x[..., 1::2], x[..., ::2]], -1).reshape(x.shape)
// (interleaved pairs); q = q * scale; attn = q @ k^T; softmax(-1); attn @
// v; transpose(1, 2).reshape(B, N, C). B = 1, N = 1 + 4 patches, H = 2,
// head_dim = 16.

// CHECK-LABEL: func.func @timm_eva_packed_qkv_rope_skip_prefix_f32
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @timm_eva_packed_qkv_rope_skip_prefix_f32(
    %qkv0: tensor<1x5x96xf32>, %rope: tensor<4x32xf32>) -> tensor<1x5x32xf32> {
  %qkv5 = poot.reshape %qkv0 : tensor<1x5x96xf32> -> tensor<1x5x3x2x16xf32>
  %qkv = poot.transpose %qkv5 {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<1x5x3x2x16xf32>
  %q1 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x5x16xf32>
  %k1 = poot.slice %qkv {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x5x16xf32>
  %v1 = poot.slice %qkv {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x5x16xf32>
  %q = poot.reshape %q1 : tensor<1x1x2x5x16xf32> -> tensor<1x2x5x16xf32>
  %k = poot.reshape %k1 : tensor<1x1x2x5x16xf32> -> tensor<1x2x5x16xf32>
  %v = poot.reshape %v1 : tensor<1x1x2x5x16xf32> -> tensor<1x2x5x16xf32>
  // sin_emb, cos_emb = rope.tensor_split(2, -1)
  %sin = poot.slice %rope {start = array<i64: 0, 0>, limit = array<i64: 4, 16>, step = array<i64: 1, 1>} : tensor<4x32xf32>
  %cos = poot.slice %rope {start = array<i64: 0, 16>, limit = array<i64: 4, 32>, step = array<i64: 1, 1>} : tensor<4x32xf32>
  %qpre = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 1, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xf32>
  %qpt = poot.slice %q {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xf32>
  %qodd = poot.slice %qpt {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x16xf32>
  %qeven = poot.slice %qpt {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x16xf32>
  %qnodd = poot.neg %qodd : tensor<1x2x4x8xf32>
  %qs1 = poot.reshape %qnodd : tensor<1x2x4x8xf32> -> tensor<1x2x4x8x1xf32>
  %qs2 = poot.reshape %qeven : tensor<1x2x4x8xf32> -> tensor<1x2x4x8x1xf32>
  %qst = poot.concat %qs1, %qs2 {axis = 4 : i64} : tensor<1x2x4x8x1xf32>, tensor<1x2x4x8x1xf32>
  %qrot = poot.reshape %qst : tensor<1x2x4x8x2xf32> -> tensor<1x2x4x16xf32>
  %qa = poot.mul %qpt, %cos : tensor<1x2x4x16xf32>, tensor<4x16xf32>
  %qb = poot.mul %qrot, %sin : tensor<1x2x4x16xf32>, tensor<4x16xf32>
  %qe = poot.add %qa, %qb : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %qr = poot.concat %qpre, %qe {axis = 2 : i64} : tensor<1x2x1x16xf32>, tensor<1x2x4x16xf32>
  %kpre = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 1, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xf32>
  %kpt = poot.slice %k {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xf32>
  %kodd = poot.slice %kpt {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x16xf32>
  %keven = poot.slice %kpt {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x16xf32>
  %knodd = poot.neg %kodd : tensor<1x2x4x8xf32>
  %ks1 = poot.reshape %knodd : tensor<1x2x4x8xf32> -> tensor<1x2x4x8x1xf32>
  %ks2 = poot.reshape %keven : tensor<1x2x4x8xf32> -> tensor<1x2x4x8x1xf32>
  %kst = poot.concat %ks1, %ks2 {axis = 4 : i64} : tensor<1x2x4x8x1xf32>, tensor<1x2x4x8x1xf32>
  %krot = poot.reshape %kst : tensor<1x2x4x8x2xf32> -> tensor<1x2x4x16xf32>
  %ka = poot.mul %kpt, %cos : tensor<1x2x4x16xf32>, tensor<4x16xf32>
  %kb = poot.mul %krot, %sin : tensor<1x2x4x16xf32>, tensor<4x16xf32>
  %ke = poot.add %ka, %kb : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %kr = poot.concat %kpre, %ke {axis = 2 : i64} : tensor<1x2x1x16xf32>, tensor<1x2x4x16xf32>
  %scale = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %qr, %scale : tensor<1x2x5x16xf32>, tensor<f32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %attn0 = poot.matmul %qs, %kt : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  %mx = poot.reduce_max %attn0 {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %attn0, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %attn = poot.div %e, %zs : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %x = poot.matmul %attn, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  %xt = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x16xf32>
  %out = poot.reshape %xt : tensor<1x5x2x16xf32> -> tensor<1x5x32xf32>
  return %out : tensor<1x5x32xf32>
}
