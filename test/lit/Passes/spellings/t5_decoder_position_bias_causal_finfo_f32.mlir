// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF T5Attention in a decoder self-attention layer: no 1/sqrt(d) (T5 folds
// it into the weights); position_bias = compute_bias(...) (a learned
// per-head table gathered by relative bucket, [1, H, L, L], here an input)
// plus the causal mask select(t > i, finfo.min, 0); scores = q @ k^T +
// position_bias; softmax(float); @ v. The bias is a tensor, so the finite
// fill is not read as -inf (parts of one finite sum do not split): the sum
// is the fused op's tensor mask. B = 1, H = 2, L = 6, D = 32.

// CHECK-LABEL: func.func @t5_decoder_position_bias_causal_finfo_f32
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x6x32xf32>, %[[K:[^:]+]]: tensor<1x2x6x32xf32>, %[[V:[^:]+]]: tensor<1x2x6x32xf32>, %[[PB:[^:]+]]: tensor<1x2x6x6xf32>
// CHECK: %[[B:.+]] = poot.add %[[PB]], %{{.+}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[B]] : tensor<1x2x6x6xf32>) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask
func.func @t5_decoder_position_bias_causal_finfo_f32(%q: tensor<1x2x6x32xf32>, %k: tensor<1x2x6x32xf32>,
                                                     %v: tensor<1x2x6x32xf32>, %pb: tensor<1x2x6x6xf32>)
    -> tensor<1x2x6x32xf32> {
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x6x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x6xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x6xi32>, tensor<1x1x6x1xi32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %cm = poot.select %hid, %min, %zero : tensor<1x1x6x6xi1>, tensor<f32>, tensor<f32>
  %bias = poot.add %pb, %cm : tensor<1x2x6x6xf32>, tensor<1x1x6x6xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x6x32xf32>, tensor<1x2x32x6xf32>
  %sb = poot.add %s, %bias : tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>
  %m = poot.reduce_max %sb {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %sb, %m : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %p = poot.div %e, %z : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x32xf32>
  return %o : tensor<1x2x6x32xf32>
}
