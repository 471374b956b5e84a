// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A bf16 graph that upcasts for the scores (q.float() @ k.float()^T, the
// scale and softmax in f32, like upcast_attn in GPT-2), casts p back to bf16
// for p @ v. MHA, D = 64, Lq = 3.

// CHECK-LABEL: func.func @bf16_scores_f32
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x3x64xbf16>, %[[K:[^:]+]]: tensor<1x4x14x64xbf16>, %[[V:[^:]+]]: tensor<1x4x14x64xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 1.250000e-01 : f64} : tensor<1x4x3x64xbf16>, tensor<1x4x14x64xbf16>, tensor<1x4x14x64xbf16> -> tensor<1x4x3x64xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @bf16_scores_f32(%q: tensor<1x4x3x64xbf16>, %k: tensor<1x4x14x64xbf16>,
                           %v: tensor<1x4x14x64xbf16>) -> tensor<1x4x3x64xbf16> {
  %q32 = poot.convert %q : tensor<1x4x3x64xbf16> -> tensor<1x4x3x64xf32>
  %k32 = poot.convert %k : tensor<1x4x14x64xbf16> -> tensor<1x4x14x64xf32>
  %kt = poot.transpose %k32 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x14x64xf32>
  %s = poot.matmul %q32, %kt : tensor<1x4x3x64xf32>, tensor<1x4x64x14xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x3x14xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x3x14xf32>
  %d = poot.sub %ss, %m : tensor<1x4x3x14xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x14xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x14xf32>
  %p32 = poot.div %e, %z : tensor<1x4x3x14xf32>, tensor<1x4x3x1xf32>
  %p = poot.convert %p32 : tensor<1x4x3x14xf32> -> tensor<1x4x3x14xbf16>
  %o = poot.matmul %p, %v : tensor<1x4x3x14xbf16>, tensor<1x4x14x64xbf16>
  return %o : tensor<1x4x3x64xbf16>
}
