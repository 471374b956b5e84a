// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// T5: no 1/sqrt(d) at all (it is folded into the initialisation), a learned
// relative position bias [1, H, Lq, Lk] added to the raw scores, and the
// softmax computed in f32 of an f32 graph with the max kept as
// reduce_max + broadcast. H = 4, D = 64, B = 2, Lq = 5.

// CHECK-LABEL: func.func @t5_unscaled_bias
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x5x64xf32>, %[[K:[^:]+]]: tensor<2x4x6x64xf32>, %[[V:[^:]+]]: tensor<2x4x6x64xf32>, %[[PB:[^:]+]]: tensor<1x4x5x6xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[PB]] : tensor<1x4x5x6xf32>) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @t5_unscaled_bias(%q: tensor<2x4x5x64xf32>, %k: tensor<2x4x6x64xf32>,
                            %v: tensor<2x4x6x64xf32>, %bias: tensor<1x4x5x6xf32>)
    -> tensor<2x4x5x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x5x64xf32>, tensor<2x4x64x6xf32>
  %sb = poot.add %s, %bias : tensor<2x4x5x6xf32>, tensor<1x4x5x6xf32>
  %m = poot.reduce_max %sb {axis = 3 : i64, keepdim} : tensor<2x4x5x6xf32>
  %mb = poot.broadcast %m {shape = array<i64: 2, 4, 5, 6>} : tensor<2x4x5x1xf32>
  %d = poot.sub %sb, %mb : tensor<2x4x5x6xf32>, tensor<2x4x5x6xf32>
  %e = poot.exp %d : tensor<2x4x5x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x6xf32>
  %zb = poot.broadcast %z {shape = array<i64: 2, 4, 5, 6>} : tensor<2x4x5x1xf32>
  %p = poot.div %e, %zb : tensor<2x4x5x6xf32>, tensor<2x4x5x6xf32>
  %o = poot.matmul %p, %v : tensor<2x4x5x6xf32>, tensor<2x4x6x64xf32>
  return %o : tensor<2x4x5x64xf32>
}
