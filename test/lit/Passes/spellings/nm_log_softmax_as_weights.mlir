// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss: log-probabilities used as the weights, p = log_softmax(s) =
// s - max - log(sum(exp(s - max))), then p @ v (a port that forgot the exp
// of F.log_softmax). Not attention; must decline.
// MHA, B = 1, H = 2, L = 5, D = 32.

// CHECK-LABEL: func.func @nm_log_softmax_as_weights
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: the probabilities are not exp(s) / sum(exp(s))
func.func @nm_log_softmax_as_weights(%q: tensor<1x2x5x32xf32>, %k: tensor<1x2x5x32xf32>,
                                    %v: tensor<1x2x5x32xf32>) -> tensor<1x2x5x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x5x32xf32>, tensor<1x2x32x5xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x5x5xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %vis = poot.compare le, %t, %i : tensor<5x5xi64>, tensor<5x5xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<5x5xi1>, tensor<1x2x5x5xf32>, tensor<f32>
  %big = poot.constant dense<-1.0e9> : tensor<f32>
  %sf = poot.select %vis, %ss, %big : tensor<5x5xi1>, tensor<1x2x5x5xf32>, tensor<f32>
  %m = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %sf, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %lz = poot.log %z : tensor<1x2x5x1xf32>
  %p0 = poot.sub %d, %lz : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %p = poot.select %vis, %p0, %zero : tensor<5x5xi1>, tensor<1x2x5x5xf32>, tensor<f32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x32xf32>
  return %o : tensor<1x2x5x32xf32>
}
