// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch, a hand-written stable softmax with a relative-position bias
// (T5/Swin style, a [1, H, Lq, Lk] tensor): the max of the raw scores is
// subtracted first, then the scale and the bias:
// torch.exp((s - s.amax(-1, keepdim=True)) * scale + bias). The max is
// only a stabiliser: it is the same for the whole row, so this is the
// softmax of s * scale + bias. MHA, B = 2, H = 2, Lq = 3, Lk = 5, D = 32.

// CHECK-LABEL: func.func @scale_bias_after_max
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x2x3x32xf32>, %[[K:[^:]+]]: tensor<2x2x5x32xf32>, %[[V:[^:]+]]: tensor<2x2x5x32xf32>, %[[B:[^:]+]]: tensor<1x2x3x5xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[B]] : tensor<1x2x3x5xf32>) {n_rep = 1 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @scale_bias_after_max(%q: tensor<2x2x3x32xf32>, %k: tensor<2x2x5x32xf32>,
                                %v: tensor<2x2x5x32xf32>, %bias: tensor<1x2x3x5xf32>)
    -> tensor<2x2x3x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x32xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x32xf32>, tensor<2x2x32x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %d = poot.sub %s, %m : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ds = poot.mul %d, %c : tensor<2x2x3x5xf32>, tensor<f32>
  %x = poot.add %ds, %bias : tensor<2x2x3x5xf32>, tensor<1x2x3x5xf32>
  %e = poot.exp %x : tensor<2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x5xf32>, tensor<2x2x5x32xf32>
  return %o : tensor<2x2x3x32xf32>
}
