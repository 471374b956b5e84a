// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch's _safe_softmax (the math SDPA path for masked attention): the
// softmax, then zero on the rows whose scores are all -inf, spelled
// where(max == -inf, 0, p) with the softmax's own max. The mask is causal
// over a prefill (iotas), so every row sees its own key: the guard never
// fires and the result is the plain attention.
// GQA 4/2 by repeat_kv, B = 1, L = 7, D = 32.

// CHECK-LABEL: func.func @torch_safe_softmax_causal
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x7x32xf32>, %[[K:[^:]+]]: tensor<1x2x7x32xf32>, %[[V:[^:]+]]: tensor<1x2x7x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|select}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 2 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|select}}
// CHECK: return %[[O]]
func.func @torch_safe_softmax_causal(%q: tensor<1x4x7x32xf32>, %k: tensor<1x2x7x32xf32>,
                                     %v: tensor<1x2x7x32xf32>) -> tensor<1x4x7x32xf32> {
  %k5 = poot.reshape %k : tensor<1x2x7x32xf32> -> tensor<1x2x1x7x32xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 7, 32>} : tensor<1x2x1x7x32xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x7x32xf32> -> tensor<1x4x7x32xf32>
  %v5 = poot.reshape %v : tensor<1x2x7x32xf32> -> tensor<1x2x1x7x32xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 7, 32>} : tensor<1x2x1x7x32xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x7x32xf32> -> tensor<1x4x7x32xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x7x32xf32>, tensor<1x4x32x7xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x7x7xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<7x7xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<7x7xi64>
  %keep = poot.compare le, %t, %i : tensor<7x7xi64>, tensor<7x7xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<7x7xi1>, tensor<1x4x7x7xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x7x7xf32>
  %d = poot.sub %x, %m : tensor<1x4x7x7xf32>, tensor<1x4x7x1xf32>
  %e = poot.exp %d : tensor<1x4x7x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x7x7xf32>
  %p = poot.div %e, %z : tensor<1x4x7x7xf32>, tensor<1x4x7x1xf32>
  %empty = poot.compare eq, %m, %ninf : tensor<1x4x7x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %empty, %zero, %p : tensor<1x4x7x1xi1>, tensor<f32>, tensor<1x4x7x7xf32>
  %o = poot.matmul %ps, %vr : tensor<1x4x7x7xf32>, tensor<1x4x7x32xf32>
  return %o : tensor<1x4x7x32xf32>
}
