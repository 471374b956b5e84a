// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// ONNX Runtime 1.17 com.microsoft.Attention (unidirectional=1) with a 2D
// mask_index, as its CPU kernel computes it (AttentionCPUBase::
// ComputeAttentionProbs): PrepareMask writes mask_filter_value (-10000) where
// mask_index is 0 and then over every future key (t > past + i), 0
// elsewhere; the scores are a GEMM with alpha = 1 / sqrt(head_size) plus
// that mask; ComputeAttentionSoftmaxInplace (max, exp, sum, divide); then
// P . V. B = 2, H = 2, L = 4, D = 48.
// The padding input may hide a row's every causal key (a left-padded
// row's first queries); there -10000 averages the hidden keys where -inf
// would give 0/0, so the fill is no meaning: the mask stays a tensor.

// CHECK-LABEL: func.func @ort_attention_unidirectional_mask_index_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: mask(
// CHECK-NOT: causal
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.144338, tensor mask; mask kept as a tensor: finite fill -10000 over a condition read only in part
func.func @ort_attention_unidirectional_mask_index_f32(%q: tensor<2x2x4x48xf32>, %k: tensor<2x2x4x48xf32>,
                                                       %v: tensor<2x2x4x48xf32>, %mi: tensor<2x4xi32>)
    -> tensor<2x2x4x48xf32> {
  %z = poot.constant dense<0> : tensor<i32>
  %keep = poot.compare gt, %mi, %z : tensor<2x4xi32>, tensor<i32>
  %k4 = poot.reshape %keep : tensor<2x4xi1> -> tensor<2x1x1x4xi1>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %filt = poot.constant dense<-10000.0> : tensor<f32>
  %pm = poot.select %k4, %zero, %filt : tensor<2x1x1x4xi1>, tensor<f32>, tensor<f32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x4x4xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x4x4xi32>
  %fut = poot.compare gt, %t, %i : tensor<1x1x4x4xi32>, tensor<1x1x4x4xi32>
  %mask = poot.select %fut, %filt, %pm : tensor<1x1x4x4xi1>, tensor<f32>, tensor<2x1x1x4xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x48xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x48xf32>, tensor<2x2x48x4xf32>
  %a = poot.constant dense<0.144337565> : tensor<f32>
  %ss = poot.mul %s, %a : tensor<2x2x4x4xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<2x2x4x4xf32>, tensor<2x1x4x4xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %d = poot.sub %sm, %mx : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x4xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %p = poot.div %e, %zs : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x48xf32>
  return %o : tensor<2x2x4x48xf32>
}
