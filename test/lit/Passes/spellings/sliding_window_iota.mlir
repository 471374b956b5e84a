// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Mistral-style sliding window over a prefill: a key is visible iff
// t <= i and i - t < 4, built as and(ge(i, t), lt(i - t, 4)) on iotas and
// selected with -inf. GQA 8/2 by repeat_kv, D = 40, Lq = Lk = 10.

// CHECK-LABEL: func.func @sliding_window_iota
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x10x40xf32>, %[[K:[^:]+]]: tensor<1x2x10x40xf32>, %[[V:[^:]+]]: tensor<1x2x10x40xf32>
// out = softmax((q . k) * 40^-1/2, keys i - 4 < t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 4 : i64, scale = 0.158113{{[0-9]+}} : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @sliding_window_iota(%q: tensor<1x8x10x40xf32>, %k: tensor<1x2x10x40xf32>,
                               %v: tensor<1x2x10x40xf32>) -> tensor<1x8x10x40xf32> {
  %i = poot.iota {dim = 0 : i64} : tensor<10x10xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<10x10xi64>
  %causal = poot.compare ge, %i, %t : tensor<10x10xi64>, tensor<10x10xi64>
  %dist = poot.sub %i, %t : tensor<10x10xi64>, tensor<10x10xi64>
  %w = poot.constant dense<4> : tensor<i64>
  %near = poot.compare lt, %dist, %w : tensor<10x10xi64>, tensor<i64>
  %vis = poot.and %causal, %near : tensor<10x10xi1>, tensor<10x10xi1>
  %k5 = poot.reshape %k : tensor<1x2x10x40xf32> -> tensor<1x2x1x10x40xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 10, 40>} : tensor<1x2x1x10x40xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x10x40xf32> -> tensor<1x8x10x40xf32>
  %v5 = poot.reshape %v : tensor<1x2x10x40xf32> -> tensor<1x2x1x10x40xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 10, 40>} : tensor<1x2x1x10x40xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x10x40xf32> -> tensor<1x8x10x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x10x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x8x10x40xf32>, tensor<1x8x40x10xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x8x10x10xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<10x10xi1>, tensor<1x8x10x10xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x8x10x10xf32>
  %d = poot.sub %sm, %m : tensor<1x8x10x10xf32>, tensor<1x8x10x1xf32>
  %e = poot.exp %d : tensor<1x8x10x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x10x10xf32>
  %p = poot.div %e, %z : tensor<1x8x10x10xf32>, tensor<1x8x10x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x8x10x10xf32>, tensor<1x8x10x40xf32>
  return %o : tensor<1x8x10x40xf32>
}
