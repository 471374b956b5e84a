// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch's _safe_softmax as aten writes it: masked = x == -inf,
// masked_rows = all(masked, -1, keepdim=True) (exported as a min over the
// mask cast to float, == 1), where(masked_rows, 0, softmax(x)). The mask is
// Mistral's sliding window over a prefill (t <= i and i - t < 3, on
// iotas): every row sees its own key, so the guard never fires.
// MHA, B = 2, H = 2, L = 6, D = 16.

// CHECK-LABEL: func.func @torch_safe_softmax_all_window
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x6x16xf32>, %[[K:[^:]+]]: tensor<2x2x6x16xf32>, %[[V:[^:]+]]: tensor<2x2x6x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_min|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, window = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_min|reduce_sum}}
// CHECK: return %[[O]]
func.func @torch_safe_softmax_all_window(%q: tensor<2x2x6x16xf32>, %k: tensor<2x2x6x16xf32>,
                                         %v: tensor<2x2x6x16xf32>) -> tensor<2x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x6xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<6x6xi64>
  %causal = poot.compare ge, %i, %t : tensor<6x6xi64>, tensor<6x6xi64>
  %dist = poot.sub %i, %t : tensor<6x6xi64>, tensor<6x6xi64>
  %w = poot.constant dense<3> : tensor<i64>
  %near = poot.compare lt, %dist, %w : tensor<6x6xi64>, tensor<i64>
  %vis = poot.and %causal, %near : tensor<6x6xi1>, tensor<6x6xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %vis, %ss, %ninf : tensor<6x6xi1>, tensor<2x2x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %x, %m : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %z : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<2x2x6x6xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<2x2x6x6xi1> -> tensor<2x2x6x6xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<2x2x6x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<2x2x6x1xi1>, tensor<f32>, tensor<2x2x6x6xf32>
  %o = poot.matmul %ps, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  return %o : tensor<2x2x6x16xf32>
}
