// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// GPT-2 / "Attention is all you need" style: w = (q @ k^T) / sqrt(d) as a
// division, then w.masked_fill(pad, -inf) with a boolean padding mask
// [B, 1, 1, Lk] that is true where the key is hidden. D = 96, B = 2, Lq = 3.

// CHECK-LABEL: func.func @div_sqrt_d
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x3x96xf32>, %[[K:[^:]+]]: tensor<2x4x16x96xf32>, %[[V:[^:]+]]: tensor<2x4x16x96xf32>, %[[PAD:[^:]+]]: tensor<2x1x1x16xi1>
// the padding mask becomes an additive [B, 1, Lq, Lk] tensor: pad ? -inf : 0
// CHECK: %[[SEL:.+]] = poot.select %[[PAD]]
// CHECK: %[[M:.+]] = poot.broadcast %[[SEL]] {shape = array<i64: 2, 1, 3, 16>}
// out = softmax((q . k) / sqrt(96) + mask) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x16xf32>) {n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @div_sqrt_d(%q: tensor<2x4x3x96xf32>, %k: tensor<2x4x16x96xf32>,
                      %v: tensor<2x4x16x96xf32>, %pad: tensor<2x1x1x16xi1>)
    -> tensor<2x4x3x96xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x3x96xf32>, tensor<2x4x96x16xf32>
  %c = poot.constant dense<9.79795933> : tensor<f32>
  %cb = poot.broadcast %c {shape = array<i64: 2, 4, 3, 16>} : tensor<f32>
  %w = poot.div %s, %cb : tensor<2x4x3x16xf32>, tensor<2x4x3x16xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %wm = poot.select %pad, %ninf, %w : tensor<2x1x1x16xi1>, tensor<f32>, tensor<2x4x3x16xf32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x4x3x16xf32>
  %d = poot.sub %wm, %m : tensor<2x4x3x16xf32>, tensor<2x4x3x1xf32>
  %e = poot.exp %d : tensor<2x4x3x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x3x16xf32>
  %p = poot.div %e, %z : tensor<2x4x3x16xf32>, tensor<2x4x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x3x16xf32>, tensor<2x4x16x96xf32>
  return %o : tensor<2x4x3x96xf32>
}
