// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch, the FlashAttention-style eager reference: the raw scores are
// masked (s.masked_fill(~causal, -inf)), the max is taken over them, and
// the softmax scale is applied after the subtraction:
// p = torch.exp((s - s.amax(-1, keepdim=True)) * softmax_scale), then
// p / p.sum(-1, keepdim=True). A positive constant scale after the max is
// the same softmax of s * scale. MHA, B = 1, H = 2, L = 8, D = 64.

// CHECK-LABEL: func.func @flash_ref_scale_after_max
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x8x64xf32>, %[[K:[^:]+]]: tensor<1x2x8x64xf32>, %[[V:[^:]+]]: tensor<1x2x8x64xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @flash_ref_scale_after_max(%q: tensor<1x2x8x64xf32>, %k: tensor<1x2x8x64xf32>,
                                     %v: tensor<1x2x8x64xf32>) -> tensor<1x2x8x64xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x64xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x8x64xf32>, tensor<1x2x64x8xf32>
  %i = poot.iota {dim = 0 : i64} : tensor<8x8xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<8x8xi64>
  %future = poot.compare gt, %t, %i : tensor<8x8xi64>, tensor<8x8xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %future, %ninf, %s : tensor<8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ds = poot.mul %d, %c : tensor<1x2x8x8xf32>, tensor<f32>
  %e = poot.exp %ds : tensor<1x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %p = poot.div %e, %z : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x64xf32>
  return %o : tensor<1x2x8x64xf32>
}
