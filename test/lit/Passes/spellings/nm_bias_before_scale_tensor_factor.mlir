// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: Falcon's bias-before-scale order, (q @ k^T + alibi) * tau,
// but tau is a learned per-head temperature [1, H, 1, 1] (an input, as in
// Swin-V2's logit_scale.exp()), not a constant: the fused op takes one
// constant scale, and distributing a tensor factor over the bias would
// still leave the scores scaled per head. Declined; runs unfused.
// B = 1, H = 4, L = 5, D = 32.

// CHECK-LABEL: func.func @nm_bias_before_scale_tensor_factor
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.mul' at line {{[0-9]+}} scales the scores by a factor that is not a constant: no scale the fused op takes{{$}}
func.func @nm_bias_before_scale_tensor_factor(%q: tensor<1x4x5x32xf32>, %k: tensor<1x4x5x32xf32>,
                                              %v: tensor<1x4x5x32xf32>, %tau: tensor<1x4x1x1xf32>)
    -> tensor<1x4x5x32xf32> {
  %alibi = poot.constant dense<[[[[0.0, 0.25, 0.5, 0.75, 1.0]], [[0.0, 0.0625, 0.125, 0.1875, 0.25]], [[0.0, 0.015625, 0.03125, 0.046875, 0.0625]], [[0.0, 0.00390625, 0.0078125, 0.01171875, 0.015625]]]]> : tensor<1x4x1x5xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x5x32xf32>, tensor<1x4x32x5xf32>
  %sa = poot.add %s, %alibi : tensor<1x4x5x5xf32>, tensor<1x4x1x5xf32>
  %ss = poot.mul %sa, %tau : tensor<1x4x5x5xf32>, tensor<1x4x1x1xf32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %ss, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x5x5xf32>, tensor<1x4x5x32xf32>
  return %o : tensor<1x4x5x32xf32>
}
