// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch, a padding mask applied after the max: the max is taken over the
// unmasked scaled scores, and the boolean key-padding mask hides keys on
// the shifted scores, torch.exp((s - s.amax(-1, keepdim=True)).masked_fill(
// ~keep, -inf)). The max is the same for the whole row, so the result is
// the masked softmax; a row the mask hides entirely is 0/0 in both.
// MHA, B = 2, H = 2, Lq = 3, Lk = 4, D = 16.

// CHECK-LABEL: func.func @mask_after_unmasked_max
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x3x16xf32>, %[[K:[^:]+]]: tensor<2x2x4x16xf32>, %[[V:[^:]+]]: tensor<2x2x4x16xf32>, %[[KEEP:[^:]+]]: tensor<2x1x1x4xi1>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%{{.+}} : tensor<2x1x3x4xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @mask_after_unmasked_max(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x4x16xf32>,
                                   %v: tensor<2x2x4x16xf32>, %keep: tensor<2x1x1x4xi1>)
    -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x4xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x2x3x4xf32>, tensor<f32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x3x4xf32>
  %d = poot.sub %s, %m : tensor<2x2x3x4xf32>, tensor<2x2x3x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %dm = poot.select %keep, %d, %ninf : tensor<2x1x1x4xi1>, tensor<2x2x3x4xf32>, tensor<f32>
  %e = poot.exp %dm : tensor<2x2x3x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x4xf32>
  %p = poot.div %e, %z : tensor<2x2x3x4xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x4xf32>, tensor<2x2x4x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
