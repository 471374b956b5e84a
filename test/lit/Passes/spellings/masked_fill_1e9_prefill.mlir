// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A port's causal prefill: scores.masked_fill(tril == 0, -1e9) on the scaled
// scores, tril from two iotas (keep t <= i). Row i always keeps keys 0..i,
// and -1e9 less any score of the row is far below exp's underflow, so the
// fill hides exactly what -inf would. Two heads, D = 48, L = 10.

// CHECK-LABEL: func.func @masked_fill_1e9_prefill
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x10x48xf32>, %[[K:[^:]+]]: tensor<2x2x10x48xf32>, %[[V:[^:]+]]: tensor<2x2x10x48xf32>
// out = softmax((q . k) * 48^-1/2, keys t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 0.144337{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @masked_fill_1e9_prefill(%q: tensor<2x2x10x48xf32>, %k: tensor<2x2x10x48xf32>,
                                   %v: tensor<2x2x10x48xf32>) -> tensor<2x2x10x48xf32> {
  %i = poot.iota {dim = 0 : i64} : tensor<10x1xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<1x10xi32>
  %keep = poot.compare le, %t, %i : tensor<1x10xi32>, tensor<10x1xi32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x10x48xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x10x48xf32>, tensor<2x2x48x10xf32>
  %c = poot.constant dense<0.144337565> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x10x10xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0e+09> : tensor<f32>
  %sm = poot.select %keep, %ss, %fill : tensor<10x10xi1>, tensor<2x2x10x10xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x2x10x10xf32>
  %d = poot.sub %sm, %m : tensor<2x2x10x10xf32>, tensor<2x2x10x1xf32>
  %e = poot.exp %d : tensor<2x2x10x10xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x2x10x10xf32>
  %p = poot.div %e, %z : tensor<2x2x10x10xf32>, tensor<2x2x10x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x10x10xf32>, tensor<2x2x10x48xf32>
  return %o : tensor<2x2x10x48xf32>
}
