// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch SDPA math path with a boolean attn_mask [Lq, Lk] (true = attend):
// attn_bias = zeros().masked_fill_(attn_mask.logical_not(), -inf), then
// attn_weight = q @ k^T * scale_factor; attn_weight += attn_bias. D = 64,
// B = 2, Lq = 5.

// CHECK-LABEL: func.func @sdpa_bool_mask_bias
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x5x64xf32>, %[[K:[^:]+]]: tensor<2x2x9x64xf32>, %[[V:[^:]+]]: tensor<2x2x9x64xf32>, %[[AM:[^:]+]]: tensor<5x9xi1>
// CHECK: %[[BIAS:.+]] = poot.select
// CHECK: %[[M:.+]] = poot.reshape %[[BIAS]] : tensor<5x9xf32> -> tensor<1x1x5x9xf32>
// out = softmax((q . k) / 8 + bias) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x1x5x9xf32>) {n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @sdpa_bool_mask_bias(%q: tensor<2x2x5x64xf32>, %k: tensor<2x2x9x64xf32>,
                               %v: tensor<2x2x9x64xf32>, %am: tensor<5x9xi1>)
    -> tensor<2x2x5x64xf32> {
  %zeros = poot.constant dense<0.0> : tensor<5x9xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %hide = poot.not %am : tensor<5x9xi1>
  %bias = poot.select %hide, %ninf, %zeros : tensor<5x9xi1>, tensor<f32>, tensor<5x9xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x9x64xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x5x64xf32>, tensor<2x2x64x9xf32>
  %c = poot.constant dense<0.125> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x5x9xf32>, tensor<f32>
  %sm = poot.add %ss, %bias : tensor<2x2x5x9xf32>, tensor<5x9xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x2x5x9xf32>
  %d = poot.sub %sm, %m : tensor<2x2x5x9xf32>, tensor<2x2x5x1xf32>
  %e = poot.exp %d : tensor<2x2x5x9xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x2x5x9xf32>
  %p = poot.div %e, %z : tensor<2x2x5x9xf32>, tensor<2x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x5x9xf32>, tensor<2x2x9x64xf32>
  return %o : tensor<2x2x5x64xf32>
}
