// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, PyTorch: the padding mask applied after the softmax only,
// p = torch.softmax(s, -1).masked_fill(~keep, 0): the kept weights are
// not renormalised, so this is no masked softmax. Declined; runs unfused.
// MHA, B = 2, H = 2, Lq = 3, Lk = 6, D = 16.

// CHECK-LABEL: func.func @nm_post_softmax_mask
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_post_softmax_mask(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x6x16xf32>,
                                %v: tensor<2x2x6x16xf32>, %keep: tensor<2x1x1x6xi1>)
    -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x6xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x3x6xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x2x3x6xf32>
  %d = poot.sub %ss, %m : tensor<2x2x3x6xf32>, tensor<2x2x3x1xf32>
  %e = poot.exp %d : tensor<2x2x3x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x6xf32>
  %p = poot.div %e, %z : tensor<2x2x3x6xf32>, tensor<2x2x3x1xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  // EXPLAIN: remark: attention declined: 'poot.select' at line [[#@LINE+1]] masks the probabilities after the softmax by a condition the scores are not masked with: the weights it keeps are not renormalised{{$}}
  %pm = poot.select %keep, %p, %zero : tensor<2x1x1x6xi1>, tensor<2x2x3x6xf32>, tensor<f32>
  %o = poot.matmul %pm, %v : tensor<2x2x3x6xf32>, tensor<2x2x6x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
