// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, the linear attention of denoising-diffusion-pytorch
// (lucidrains/denoising-diffusion-pytorch denoising_diffusion_pytorch/
// denoising_diffusion_pytorch.py, LinearAttention.forward): q, k, v =
// to_qkv(x).chunk(3, dim=1), each rearranged 'b (h c) x y -> b h c (x y)';
// q.softmax(dim=-2) (over channels), k.softmax(dim=-1) (over positions);
// q * scale; v / (h * w); context = einsum('b h d n, b h e n -> b h d e', k,
// v); out = einsum('b h d e, b h d n -> b h e n', context, q); rearranged
// back. Softmaxes of single operands and a (k v^T) q product: no
// softmax(q . k) anywhere; must not fuse. B = 1, 4 heads of 16, a 4x4 map.

// CHECK-LABEL: func.func @nm_ddpm_linear_attention_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.reshape' between the first matmul and the softmax
func.func @nm_ddpm_linear_attention_f32(%qkv: tensor<1x192x4x4xf32>) -> tensor<1x64x4x4xf32> {
  %q0 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 64, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x192x4x4xf32>
  %k0 = poot.slice %qkv {start = array<i64: 0, 64, 0, 0>, limit = array<i64: 1, 128, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x192x4x4xf32>
  %v0 = poot.slice %qkv {start = array<i64: 0, 128, 0, 0>, limit = array<i64: 1, 192, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x192x4x4xf32>
  %q = poot.reshape %q0 : tensor<1x64x4x4xf32> -> tensor<1x4x16x16xf32>
  %k = poot.reshape %k0 : tensor<1x64x4x4xf32> -> tensor<1x4x16x16xf32>
  %v = poot.reshape %v0 : tensor<1x64x4x4xf32> -> tensor<1x4x16x16xf32>
  %qm = poot.reduce_max %q {axis = 2 : i64, keepdim} : tensor<1x4x16x16xf32>
  %qd = poot.sub %q, %qm : tensor<1x4x16x16xf32>, tensor<1x4x1x16xf32>
  %qe = poot.exp %qd : tensor<1x4x16x16xf32>
  %qz = poot.reduce_sum %qe {axis = 2 : i64, keepdim} : tensor<1x4x16x16xf32>
  %qsm = poot.div %qe, %qz : tensor<1x4x16x16xf32>, tensor<1x4x1x16xf32>
  %km = poot.reduce_max %k {axis = 3 : i64, keepdim} : tensor<1x4x16x16xf32>
  %kd = poot.sub %k, %km : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>
  %ke = poot.exp %kd : tensor<1x4x16x16xf32>
  %kz = poot.reduce_sum %ke {axis = 3 : i64, keepdim} : tensor<1x4x16x16xf32>
  %ksm = poot.div %ke, %kz : tensor<1x4x16x16xf32>, tensor<1x4x16x1xf32>
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %qsm, %sc : tensor<1x4x16x16xf32>, tensor<f32>
  %hw = poot.constant dense<16.0> : tensor<f32>
  %vs = poot.div %v, %hw : tensor<1x4x16x16xf32>, tensor<f32>
  %vt = poot.transpose %vs {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x16xf32>
  %ctx = poot.matmul %ksm, %vt : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  %ctxt = poot.transpose %ctx {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x16xf32>
  %out = poot.matmul %ctxt, %qs : tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>
  %o = poot.reshape %out : tensor<1x4x16x16xf32> -> tensor<1x64x4x4xf32>
  return %o : tensor<1x64x4x4xf32>
}
