// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Keras 3's Softmax layer with a tuple axis and a mask: the mask as the
// additive (1 - float(mask)) * -1e9, then exp(x - logsumexp(x)) with TF's
// reduce_logsumexp: m = where(is_finite(max(x)), max(x), 0) and
// lse = log(sum(exp(x - m))) + m. The mask is causal (built from iotas), so
// every row keeps its own key and the finite fill stands for -inf.
// MHA, B = 2, H = 2, L = 6, D = 32, the query scaled first (as Keras does).

// CHECK-LABEL: func.func @keras_softmax_layer_lse
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x6x32xf32>, %[[K:[^:]+]]: tensor<2x2x6x32xf32>, %[[V:[^:]+]]: tensor<2x2x6x32xf32>
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|log|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @keras_softmax_layer_lse(%q: tensor<2x2x6x32xf32>, %k: tensor<2x2x6x32xf32>,
                                   %v: tensor<2x2x6x32xf32>) -> tensor<2x2x6x32xf32> {
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<2x2x6x32xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x32xf32>
  %s = poot.matmul %qs, %kt : tensor<2x2x6x32xf32>, tensor<2x2x32x6xf32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x6xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<6x6xi64>
  %keep = poot.compare ge, %i, %t : tensor<6x6xi64>, tensor<6x6xi64>
  %keepf = poot.convert %keep : tensor<6x6xi1> -> tensor<6x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %keepf : tensor<f32>, tensor<6x6xf32>
  %big = poot.constant dense<-1.0e+09> : tensor<f32>
  %adder = poot.mul %inv, %big : tensor<6x6xf32>, tensor<f32>
  %x = poot.add %s, %adder : tensor<2x2x6x6xf32>, tensor<6x6xf32>
  %raw = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %abs = poot.abs %raw : tensor<2x2x6x1xf32>
  %inf = poot.constant dense<0x7F800000> : tensor<f32>
  %finite = poot.compare lt, %abs, %inf : tensor<2x2x6x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %m = poot.select %finite, %raw, %zero : tensor<2x2x6x1xi1>, tensor<2x2x6x1xf32>, tensor<f32>
  %d = poot.sub %x, %m : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %l = poot.log %z : tensor<2x2x6x1xf32>
  %lse = poot.add %l, %m : tensor<2x2x6x1xf32>, tensor<2x2x6x1xf32>
  %ls = poot.sub %x, %lse : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %p = poot.exp %ls : tensor<2x2x6x6xf32>
  %o = poot.matmul %p, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x32xf32>
  return %o : tensor<2x2x6x32xf32>
}
