// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch, a bf16 model with a hand-rolled mixed-precision softmax: the max
// and the subtraction in bf16, the exp and the normalisation in f32:
// e = torch.exp((s - s.amax(-1, keepdim=True)).float()),
// (e / e.sum(-1, keepdim=True)).to(torch.bfloat16) @ v.
// GQA 4/2 by repeat_kv, B = 2, Lq = 2, Lk = 10, D = 64.

// CHECK-LABEL: func.func @bf16_max_sub_f32_exp
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x2x64xbf16>, %[[K:[^:]+]]: tensor<2x2x10x64xbf16>, %[[V:[^:]+]]: tensor<2x2x10x64xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<2x4x2x64xbf16>, tensor<2x2x10x64xbf16>, tensor<2x2x10x64xbf16> -> tensor<2x4x2x64xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @bf16_max_sub_f32_exp(%q: tensor<2x4x2x64xbf16>, %k: tensor<2x2x10x64xbf16>,
                                %v: tensor<2x2x10x64xbf16>) -> tensor<2x4x2x64xbf16> {
  %k5 = poot.reshape %k : tensor<2x2x10x64xbf16> -> tensor<2x2x1x10x64xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 2, 10, 64>} : tensor<2x2x1x10x64xbf16>
  %kr = poot.reshape %kb : tensor<2x2x2x10x64xbf16> -> tensor<2x4x10x64xbf16>
  %v5 = poot.reshape %v : tensor<2x2x10x64xbf16> -> tensor<2x2x1x10x64xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 2, 10, 64>} : tensor<2x2x1x10x64xbf16>
  %vr = poot.reshape %vb : tensor<2x2x2x10x64xbf16> -> tensor<2x4x10x64xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x10x64xbf16>
  %s = poot.matmul %q, %kt : tensor<2x4x2x64xbf16>, tensor<2x4x64x10xbf16>
  %c = poot.constant dense<0.125> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<2x4x2x10xbf16>, tensor<bf16>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x4x2x10xbf16>
  %d = poot.sub %ss, %m : tensor<2x4x2x10xbf16>, tensor<2x4x2x1xbf16>
  %d32 = poot.convert %d : tensor<2x4x2x10xbf16> -> tensor<2x4x2x10xf32>
  %e = poot.exp %d32 : tensor<2x4x2x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x2x10xf32>
  %p32 = poot.div %e, %z : tensor<2x4x2x10xf32>, tensor<2x4x2x1xf32>
  %p = poot.convert %p32 : tensor<2x4x2x10xf32> -> tensor<2x4x2x10xbf16>
  %o = poot.matmul %p, %vr : tensor<2x4x2x10xbf16>, tensor<2x4x10x64xbf16>
  return %o : tensor<2x4x2x64xbf16>
}
