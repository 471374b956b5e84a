// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// lucidrains/vit-pytorch at 17675e0, vit_pytorch/na_vit.py (NaViT: packed
// variable-resolution images), Attention.forward inside Transformer with
// the attn_mask NaViT.forward builds, f32. NaViT.forward: lengths of the
// packed sequences; key_pad_mask = rearrange(lengths, 'b -> b 1') <=
// rearrange(arange(max_len), 'n -> 1 n') (spelled exactly so: as written
// it is True on the padding positions); batched_image_ids padded with 0 by
// pad_sequence; attn_mask = (ids 'b i -> b 1 i 1') == (ids 'b j -> b 1 1 j')
// and then & key_pad_mask 'b j -> b 1 1 j'. Attention: to_q(x),
// to_kv(x).chunk(2, -1) (no bias); rearrange 'b n (h d) -> b h n d';
// q_norm / k_norm are the ViT-22B RMSNorm: F.normalize(x, dim=-1) (x /
// max(||x||, 1e-12)) * dim_head ** 0.5 * gamma[heads, 1, dim_head]; dots =
// matmul(q, k^T) with no further scale; dots.masked_fill(~attn_mask,
// -finfo(f32).max); nn.Softmax(dim=-1); matmul(attn, v); rearrange
// 'b h n d -> b n (h d)'. The pre-norm LayerNorm and to_out are outside.
// B = 2, n = 8 packed tokens, dim 32, 4 heads of 16; image ids in [0, 3),
// lengths in [1, 8].
//
// Strongest form: the mask depends on the image ids and lengths (data),
// and rows with no visible key are uniform under the finite fill: one
// fused op with the [2, 1, 8, 8] tensor mask, scale 1 (the normalised,
// gamma-scaled q and k are its operands), n_rep 1.

// CHECK-LABEL: func.func @vit_pytorch_navit_image_id_eq_and_key_pad_mask_normalize_qk_gamma_unscaled_f32
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x8x8xf32>) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask
func.func @vit_pytorch_navit_image_id_eq_and_key_pad_mask_normalize_qk_gamma_unscaled_f32(
    %x: tensor<2x8x32xf32>, %to_q_t: tensor<32x64xf32>, %to_kv_t: tensor<32x128xf32>,
    %q_gamma: tensor<4x1x16xf32>, %k_gamma: tensor<4x1x16xf32>,
    %image_ids: tensor<2x8xi64> {poot.range = array<i64: 0, 3>},
    %lengths: tensor<2xi64> {poot.range = array<i64: 1, 9>}) -> tensor<2x8x64xf32> {
  // key_pad_mask = rearrange(lengths, 'b -> b 1') <= rearrange(max_length, 'n -> 1 n')
  %len2 = poot.reshape %lengths : tensor<2xi64> -> tensor<2x1xi64>
  %ar = poot.iota {dim = 1 : i64} : tensor<1x8xi64>
  %kpm = poot.compare le, %len2, %ar : tensor<2x1xi64>, tensor<1x8xi64>
  // attn_mask = ids 'b i -> b 1 i 1' == ids 'b j -> b 1 1 j'; & key_pad_mask 'b j -> b 1 1 j'
  %idi = poot.reshape %image_ids : tensor<2x8xi64> -> tensor<2x1x8x1xi64>
  %idj = poot.reshape %image_ids : tensor<2x8xi64> -> tensor<2x1x1x8xi64>
  %same = poot.compare eq, %idi, %idj : tensor<2x1x8x1xi64>, tensor<2x1x1x8xi64>
  %kpm4 = poot.reshape %kpm : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
  %attn_mask = poot.and %same, %kpm4 : tensor<2x1x8x8xi1>, tensor<2x1x1x8xi1>
  // qkv = (self.to_q(x), *self.to_kv(kv_input).chunk(2, dim = -1))
  %q0 = poot.matmul %x, %to_q_t : tensor<2x8x32xf32>, tensor<32x64xf32>
  %kv = poot.matmul %x, %to_kv_t : tensor<2x8x32xf32>, tensor<32x128xf32>
  %k0 = poot.slice %kv {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 8, 64>, step = array<i64: 1, 1, 1>} : tensor<2x8x128xf32>
  %v0 = poot.slice %kv {start = array<i64: 0, 0, 64>, limit = array<i64: 2, 8, 128>, step = array<i64: 1, 1, 1>} : tensor<2x8x128xf32>
  // rearrange(t, 'b n (h d) -> b h n d')
  %q4 = poot.reshape %q0 : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %k4 = poot.reshape %k0 : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %v4 = poot.reshape %v0 : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  // RMSNorm: F.normalize(x, dim = -1) * self.scale * self.gamma
  %eps = poot.constant dense<9.99999996E-13> : tensor<f32>
  %four = poot.constant dense<4.0> : tensor<f32>
  %qq = poot.mul %qh, %qh : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  %qs = poot.reduce_sum %qq {axis = 3 : i64, keepdim} : tensor<2x4x8x16xf32>
  %qn = poot.sqrt %qs : tensor<2x4x8x1xf32>
  %qd = poot.max %qn, %eps : tensor<2x4x8x1xf32>, tensor<f32>
  %qnorm = poot.div %qh, %qd : tensor<2x4x8x16xf32>, tensor<2x4x8x1xf32>
  %qsc = poot.mul %qnorm, %four : tensor<2x4x8x16xf32>, tensor<f32>
  %q = poot.mul %qsc, %q_gamma : tensor<2x4x8x16xf32>, tensor<4x1x16xf32>
  %kk = poot.mul %kh, %kh : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>
  %ks = poot.reduce_sum %kk {axis = 3 : i64, keepdim} : tensor<2x4x8x16xf32>
  %kn = poot.sqrt %ks : tensor<2x4x8x1xf32>
  %kd = poot.max %kn, %eps : tensor<2x4x8x1xf32>, tensor<f32>
  %knorm = poot.div %kh, %kd : tensor<2x4x8x16xf32>, tensor<2x4x8x1xf32>
  %ksc = poot.mul %knorm, %four : tensor<2x4x8x16xf32>, tensor<f32>
  %k = poot.mul %ksc, %k_gamma : tensor<2x4x8x16xf32>, tensor<4x1x16xf32>
  // dots = torch.matmul(q, k.transpose(-1, -2))
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x8x16xf32>
  %dots = poot.matmul %q, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>
  // dots.masked_fill(~attn_mask, -torch.finfo(dots.dtype).max)
  %hide = poot.not %attn_mask : tensor<2x1x8x8xi1>
  %negmax = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %dm = poot.select %hide, %negmax, %dots : tensor<2x1x8x8xi1>, tensor<f32>, tensor<2x4x8x8xf32>
  // self.attend = nn.Softmax(dim = -1)
  %mx = poot.reduce_max %dm {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %d = poot.sub %dm, %mx : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %e = poot.exp %d : tensor<2x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %attn = poot.div %e, %z : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  // out = torch.matmul(attn, v); rearrange(out, 'b h n d -> b n (h d)')
  %o = poot.matmul %attn, %v : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf32>
  %out = poot.reshape %ot : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %out : tensor<2x8x64xf32>
}
