// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Multi-query attention with the single key/value head expanded explicitly,
// k.expand(B, Hq, Lk, D) (GPT-BigCode style), and the scale on q. Hq = 4,
// D = 512, decode.

// CHECK-LABEL: func.func @mqa_expand
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x1x512xf32>, %[[K:[^:]+]]: tensor<1x1x16x512xf32>, %[[V:[^:]+]]: tensor<1x1x16x512xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 4 : i64, scale = 0.04419417{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @mqa_expand(%q: tensor<1x4x1x512xf32>, %k: tensor<1x1x16x512xf32>,
                      %v: tensor<1x1x16x512xf32>) -> tensor<1x4x1x512xf32> {
  %c = poot.constant dense<0.0441941731> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<1x4x1x512xf32>, tensor<f32>
  %ke = poot.broadcast %k {shape = array<i64: 1, 4, 16, 512>} : tensor<1x1x16x512xf32>
  %ve = poot.broadcast %v {shape = array<i64: 1, 4, 16, 512>} : tensor<1x1x16x512xf32>
  %kt = poot.transpose %ke {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x16x512xf32>
  %s = poot.matmul %qs, %kt : tensor<1x4x1x512xf32>, tensor<1x4x512x16xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x1x16xf32>
  %d = poot.sub %s, %m : tensor<1x4x1x16xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x16xf32>
  %p = poot.div %e, %z : tensor<1x4x1x16xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %ve : tensor<1x4x1x16xf32>, tensor<1x4x16x512xf32>
  return %o : tensor<1x4x1x512xf32>
}
