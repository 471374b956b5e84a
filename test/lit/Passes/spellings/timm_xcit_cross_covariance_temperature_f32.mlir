// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// huggingface/pytorch-image-models timm/models/xcit.py (XCA.forward,
// cross-covariance attention), f32: qkv = self.qkv(x).reshape(B, N, 3, H,
// C // H).permute(2, 0, 3, 4, 1) (channels as rows, tokens as depth),
// unbind(0); q = F.normalize(q, dim=-1), k = F.normalize(k, dim=-1) (over
// the tokens: x / max(||x||, 1e-12)); attn = (q @ k^T) * self.temperature
// (a learned [H, 1, 1] per-head factor); softmax(dim=-1); (attn @ v)
// .permute(0, 3, 1, 2).reshape(B, N, C). An attention whose queries and
// keys are the C/H channels and whose contraction runs over the N tokens;
// the per-head temperature is a factor on q. B = 1, N = 10, H = 2, C/H = 8.

// CHECK-LABEL: func.func @timm_xcit_cross_covariance_temperature_f32
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1{{$}}
func.func @timm_xcit_cross_covariance_temperature_f32(
    %qkv0: tensor<1x10x48xf32>, %temperature: tensor<2x1x1xf32>) -> tensor<1x10x16xf32> {
  %qkv5 = poot.reshape %qkv0 : tensor<1x10x48xf32> -> tensor<1x10x3x2x8xf32>
  %qkv = poot.transpose %qkv5 {perm = array<i64: 2, 0, 3, 4, 1>} : tensor<1x10x3x2x8xf32>
  %q1 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 8, 10>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x8x10xf32>
  %k1 = poot.slice %qkv {start = array<i64: 1, 0, 0, 0, 0>, limit = array<i64: 2, 1, 2, 8, 10>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x8x10xf32>
  %v1 = poot.slice %qkv {start = array<i64: 2, 0, 0, 0, 0>, limit = array<i64: 3, 1, 2, 8, 10>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<3x1x2x8x10xf32>
  %q = poot.reshape %q1 : tensor<1x1x2x8x10xf32> -> tensor<1x2x8x10xf32>
  %k = poot.reshape %k1 : tensor<1x1x2x8x10xf32> -> tensor<1x2x8x10xf32>
  %v = poot.reshape %v1 : tensor<1x1x2x8x10xf32> -> tensor<1x2x8x10xf32>
  %eps = poot.constant dense<9.99999996E-13> : tensor<f32>
  // F.normalize(q, dim=-1)
  %qq = poot.mul %q, %q : tensor<1x2x8x10xf32>, tensor<1x2x8x10xf32>
  %qs = poot.reduce_sum %qq {axis = 3 : i64, keepdim} : tensor<1x2x8x10xf32>
  %qn = poot.sqrt %qs : tensor<1x2x8x1xf32>
  %qc = poot.max %qn, %eps : tensor<1x2x8x1xf32>, tensor<f32>
  %qh = poot.div %q, %qc : tensor<1x2x8x10xf32>, tensor<1x2x8x1xf32>
  // F.normalize(k, dim=-1)
  %kk = poot.mul %k, %k : tensor<1x2x8x10xf32>, tensor<1x2x8x10xf32>
  %ks = poot.reduce_sum %kk {axis = 3 : i64, keepdim} : tensor<1x2x8x10xf32>
  %kn = poot.sqrt %ks : tensor<1x2x8x1xf32>
  %kc = poot.max %kn, %eps : tensor<1x2x8x1xf32>, tensor<f32>
  %kh = poot.div %k, %kc : tensor<1x2x8x10xf32>, tensor<1x2x8x1xf32>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x10xf32>
  %a0 = poot.matmul %qh, %kt : tensor<1x2x8x10xf32>, tensor<1x2x10x8xf32>
  %a1 = poot.mul %a0, %temperature : tensor<1x2x8x8xf32>, tensor<2x1x1xf32>
  %mx = poot.reduce_max %a1 {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %d = poot.sub %a1, %mx : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %e = poot.exp %d : tensor<1x2x8x8xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %attn = poot.div %e, %zs : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %x = poot.matmul %attn, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x10xf32>
  %xp = poot.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x2x8x10xf32>
  %out = poot.reshape %xp : tensor<1x10x2x8xf32> -> tensor<1x10x16xf32>
  return %out : tensor<1x10x16xf32>
}
