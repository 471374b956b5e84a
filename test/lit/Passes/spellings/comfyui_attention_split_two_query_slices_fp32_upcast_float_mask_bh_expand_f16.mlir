// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// ComfyUI comfy/ldm/modules/attention.py, attention_split (the
// --use-split-cross-attention path) with attn_precision = float32 (the
// upcast) and a float mask, f16, with two query slices (steps = 2, as when
// the memory estimate is twice the free memory): q, k, v each
// t.unsqueeze(3).reshape(b, -1, heads, dim_head).permute(0, 2, 1, 3)
// .reshape(b * heads, -1, dim_head); r1 = torch.zeros(b * heads, Lq, dim_head);
// the mask reshape(bs, -1, Lq, Lk).expand(b, heads, -1, -1).reshape(-1, Lq, Lk);
// for i in range(0, Lq, slice_size):
//   s1 = einsum('b i d, b j d -> b i j', q[:, i:end].float(), k.float()) * scale
//   s1 += mask[:, i:end]
//   s2 = s1.softmax(dim=-1).to(v.dtype)
//   r1[:, i:end] = einsum('b i j, b j d -> b i d', s2, v)
// r1.unsqueeze(0).reshape(b, heads, -1, dim_head).permute(0, 2, 1, 3)
// .reshape(b, -1, heads * dim_head). A cross-attention: b 1, heads 2,
// dim_head 16 (scale 1/4), 8 image tokens in two slices of 4 against 6
// context tokens, the mask [1, 8, 6] in f16.
//
// Strongest form: one fused attention per query slice, each with its slice
// of the additive mask as a tensor, n_rep 1, scale 1/4.

// CHECK-LABEL: func.func @comfyui_attention_split_two_query_slices_fp32_upcast_float_mask_bh_expand_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK-COUNT-2: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN-COUNT-2: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @comfyui_attention_split_two_query_slices_fp32_upcast_float_mask_bh_expand_f16(
    %q0: tensor<1x8x32xf16>, %k0: tensor<1x6x32xf16>, %v0: tensor<1x6x32xf16>,
    %mask0: tensor<1x8x6xf16>) -> tensor<1x8x32xf16> {
  // t.unsqueeze(3).reshape(b, -1, heads, dim_head).permute(0, 2, 1, 3).reshape(b * heads, -1, dim_head)
  %qu = poot.reshape %q0 : tensor<1x8x32xf16> -> tensor<1x8x32x1xf16>
  %q4 = poot.reshape %qu : tensor<1x8x32x1xf16> -> tensor<1x8x2x16xf16>
  %q4t = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xf16>
  %q = poot.reshape %q4t : tensor<1x2x8x16xf16> -> tensor<2x8x16xf16>
  %ku = poot.reshape %k0 : tensor<1x6x32xf16> -> tensor<1x6x32x1xf16>
  %k4 = poot.reshape %ku : tensor<1x6x32x1xf16> -> tensor<1x6x2x16xf16>
  %k4t = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf16>
  %k = poot.reshape %k4t : tensor<1x2x6x16xf16> -> tensor<2x6x16xf16>
  %vu = poot.reshape %v0 : tensor<1x6x32xf16> -> tensor<1x6x32x1xf16>
  %v4 = poot.reshape %vu : tensor<1x6x32x1xf16> -> tensor<1x6x2x16xf16>
  %v4t = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf16>
  %v = poot.reshape %v4t : tensor<1x2x6x16xf16> -> tensor<2x6x16xf16>
  // r1 = torch.zeros(q.shape[0], q.shape[1], v.shape[2], dtype=q.dtype)
  %r1 = poot.constant dense<0.0> : tensor<2x8x16xf16>
  // mask.reshape(bs, -1, Lq, Lk).expand(b, heads, -1, -1).reshape(-1, Lq, Lk)
  %m4 = poot.reshape %mask0 : tensor<1x8x6xf16> -> tensor<1x1x8x6xf16>
  %m4b = poot.broadcast %m4 {shape = array<i64: 1, 2, 8, 6>} : tensor<1x1x8x6xf16>
  %mask = poot.reshape %m4b : tensor<1x2x8x6xf16> -> tensor<2x8x6xf16>
  %kf = poot.convert %k : tensor<2x6x16xf16> -> tensor<2x6x16xf32>
  %kft = poot.transpose %kf {perm = array<i64: 0, 2, 1>} : tensor<2x6x16xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %c0 = poot.constant dense<0> : tensor<i64>
  %c4 = poot.constant dense<4> : tensor<i64>
  // slice i = 0
  %qa = poot.slice %q {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 4, 16>, step = array<i64: 1, 1, 1>} : tensor<2x8x16xf16>
  %qaf = poot.convert %qa : tensor<2x4x16xf16> -> tensor<2x4x16xf32>
  %sa0 = poot.matmul %qaf, %kft : tensor<2x4x16xf32>, tensor<2x16x6xf32>
  %sa1 = poot.mul %sa0, %scale : tensor<2x4x6xf32>, tensor<f32>
  %ma = poot.slice %mask {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 4, 6>, step = array<i64: 1, 1, 1>} : tensor<2x8x6xf16>
  %maf = poot.convert %ma : tensor<2x4x6xf16> -> tensor<2x4x6xf32>
  %sa2 = poot.add %sa1, %maf : tensor<2x4x6xf32>, tensor<2x4x6xf32>
  %mxa = poot.reduce_max %sa2 {axis = 2 : i64, keepdim} : tensor<2x4x6xf32>
  %da = poot.sub %sa2, %mxa : tensor<2x4x6xf32>, tensor<2x4x1xf32>
  %ea = poot.exp %da : tensor<2x4x6xf32>
  %za = poot.reduce_sum %ea {axis = 2 : i64, keepdim} : tensor<2x4x6xf32>
  %pa = poot.div %ea, %za : tensor<2x4x6xf32>, tensor<2x4x1xf32>
  %pah = poot.convert %pa : tensor<2x4x6xf32> -> tensor<2x4x6xf16>
  %oa = poot.matmul %pah, %v : tensor<2x4x6xf16>, tensor<2x6x16xf16>
  %r1a = poot.dynamic_update_slice %r1[%c0, %c0, %c0], %oa : tensor<2x8x16xf16>, tensor<2x4x16xf16>, tensor<i64>, tensor<i64>, tensor<i64>
  // slice i = 4
  %qb = poot.slice %q {start = array<i64: 0, 4, 0>, limit = array<i64: 2, 8, 16>, step = array<i64: 1, 1, 1>} : tensor<2x8x16xf16>
  %qbf = poot.convert %qb : tensor<2x4x16xf16> -> tensor<2x4x16xf32>
  %sb0 = poot.matmul %qbf, %kft : tensor<2x4x16xf32>, tensor<2x16x6xf32>
  %sb1 = poot.mul %sb0, %scale : tensor<2x4x6xf32>, tensor<f32>
  %mb = poot.slice %mask {start = array<i64: 0, 4, 0>, limit = array<i64: 2, 8, 6>, step = array<i64: 1, 1, 1>} : tensor<2x8x6xf16>
  %mbf = poot.convert %mb : tensor<2x4x6xf16> -> tensor<2x4x6xf32>
  %sb2 = poot.add %sb1, %mbf : tensor<2x4x6xf32>, tensor<2x4x6xf32>
  %mxb = poot.reduce_max %sb2 {axis = 2 : i64, keepdim} : tensor<2x4x6xf32>
  %db = poot.sub %sb2, %mxb : tensor<2x4x6xf32>, tensor<2x4x1xf32>
  %eb = poot.exp %db : tensor<2x4x6xf32>
  %zb = poot.reduce_sum %eb {axis = 2 : i64, keepdim} : tensor<2x4x6xf32>
  %pb = poot.div %eb, %zb : tensor<2x4x6xf32>, tensor<2x4x1xf32>
  %pbh = poot.convert %pb : tensor<2x4x6xf32> -> tensor<2x4x6xf16>
  %ob = poot.matmul %pbh, %v : tensor<2x4x6xf16>, tensor<2x6x16xf16>
  %r1b = poot.dynamic_update_slice %r1a[%c0, %c4, %c0], %ob : tensor<2x8x16xf16>, tensor<2x4x16xf16>, tensor<i64>, tensor<i64>, tensor<i64>
  // r1.unsqueeze(0).reshape(b, heads, -1, dim_head).permute(0, 2, 1, 3).reshape(b, -1, heads * dim_head)
  %o4 = poot.reshape %r1b : tensor<2x8x16xf16> -> tensor<1x2x8x16xf16>
  %o4t = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x8x16xf16>
  %out = poot.reshape %o4t : tensor<1x8x2x16xf16> -> tensor<1x8x32xf16>
  return %out : tensor<1x8x32xf16>
}
