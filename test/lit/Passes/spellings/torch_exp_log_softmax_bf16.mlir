// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch, a bf16 model: torch.exp(F.log_softmax(s, dim=-1,
// dtype=torch.float32)).to(torch.bfloat16) @ v, with log_softmax as aten
// decomposes it: shifted = x - amax(x), shifted - log(sum(exp(shifted))),
// all in f32 between the converts. GQA 4/2 by repeat_kv, B = 1, Lq = 2,
// Lk = 12, D = 64.

// CHECK-LABEL: func.func @torch_exp_log_softmax_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x2x64xbf16>, %[[K:[^:]+]]: tensor<1x2x12x64xbf16>, %[[V:[^:]+]]: tensor<1x2x12x64xbf16>
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x4x2x64xbf16>, tensor<1x2x12x64xbf16>, tensor<1x2x12x64xbf16> -> tensor<1x4x2x64xbf16>
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @torch_exp_log_softmax_bf16(%q: tensor<1x4x2x64xbf16>, %k: tensor<1x2x12x64xbf16>,
                                      %v: tensor<1x2x12x64xbf16>) -> tensor<1x4x2x64xbf16> {
  %k5 = poot.reshape %k : tensor<1x2x12x64xbf16> -> tensor<1x2x1x12x64xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 12, 64>} : tensor<1x2x1x12x64xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x12x64xbf16> -> tensor<1x4x12x64xbf16>
  %v5 = poot.reshape %v : tensor<1x2x12x64xbf16> -> tensor<1x2x1x12x64xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 12, 64>} : tensor<1x2x1x12x64xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x12x64xbf16> -> tensor<1x4x12x64xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x12x64xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x2x64xbf16>, tensor<1x4x64x12xbf16>
  %c = poot.constant dense<0.125> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x4x2x12xbf16>, tensor<bf16>
  %x = poot.convert %ss : tensor<1x4x2x12xbf16> -> tensor<1x4x2x12xf32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x2x12xf32>
  %shifted = poot.sub %x, %m : tensor<1x4x2x12xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %shifted : tensor<1x4x2x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x12xf32>
  %l = poot.log %z : tensor<1x4x2x1xf32>
  %ls = poot.sub %shifted, %l : tensor<1x4x2x12xf32>, tensor<1x4x2x1xf32>
  %p32 = poot.exp %ls : tensor<1x4x2x12xf32>
  %p = poot.convert %p32 : tensor<1x4x2x12xf32> -> tensor<1x4x2x12xbf16>
  %o = poot.matmul %p, %vr : tensor<1x4x2x12xbf16>, tensor<1x4x12x64xbf16>
  return %o : tensor<1x4x2x64xbf16>
}
