// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// GPT-2 (HF eager): a registered tril(ones(n_pos, n_pos)) buffer, sliced to
// bias[:, :, k_len - q_len : k_len, :k_len] and applied as
// where(bias, w, -inf) (the chunk of 6 queries follows 4 cached keys);
// w = (q @ k^T) / sqrt(d). D = 64, B = 2.

// CHECK-LABEL: func.func @causal_tril_const
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x6x64xf32>, %[[K:[^:]+]]: tensor<2x2x10x64xf32>, %[[V:[^:]+]]: tensor<2x2x10x64xf32>
// the constant is read as causal at position k_len - q_len = 4
// CHECK: %[[POS:.+]] = poot.constant dense<4> : tensor<i64>
// out = softmax((q . k) / 8, keys t <= 4 + i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i64>) {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_tril_const(%q: tensor<2x2x6x64xf32>, %k: tensor<2x2x10x64xf32>,
                             %v: tensor<2x2x10x64xf32>) -> tensor<2x2x6x64xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %cm = poot.slice %bias {start = array<i64: 0, 0, 4, 0>, limit = array<i64: 1, 1, 10, 10>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x10x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x6x64xf32>, tensor<2x2x64x10xf32>
  %c = poot.constant dense<8.0> : tensor<f32>
  %w = poot.div %s, %c : tensor<2x2x6x10xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %wm = poot.select %cm, %w, %ninf : tensor<1x1x6x10xi1>, tensor<2x2x6x10xf32>, tensor<f32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x2x6x10xf32>
  %d = poot.sub %wm, %m : tensor<2x2x6x10xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x10xf32>
  %p = poot.div %e, %z : tensor<2x2x6x10xf32>, tensor<2x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x6x10xf32>, tensor<2x2x10x64xf32>
  return %o : tensor<2x2x6x64xf32>
}
