// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, a Gemma-2 port that soft-caps after the max subtraction,
// exp(50 * tanh((s - max(s)) / 50)): tanh does not commute with the shift,
// so this is not the softmax of the capped scores. Declined; runs unfused.
// MHA, B = 1, H = 2, Lq = 2, Lk = 7, D = 32.

// CHECK-LABEL: func.func @nm_softcap_after_max
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_softcap_after_max(%q: tensor<1x2x2x32xf32>, %k: tensor<1x2x7x32xf32>,
                                %v: tensor<1x2x7x32xf32>) -> tensor<1x2x2x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x2x32xf32>, tensor<1x2x32x7xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x2x7xf32>
  %d = poot.sub %s, %m : tensor<1x2x2x7xf32>, tensor<1x2x2x1xf32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %dc = poot.div %d, %cap : tensor<1x2x2x7xf32>, tensor<f32>
  %th = poot.tanh %dc : tensor<1x2x2x7xf32>
  // EXPLAIN: remark: attention declined: 'poot.mul' at line [[#@LINE+1]] applies a softcap after 'poot.sub' at line [[#@LINE-4]] subtracts the row max: tanh does not commute with the shift{{$}}
  %x = poot.mul %th, %cap : tensor<1x2x2x7xf32>, tensor<f32>
  %e = poot.exp %x : tensor<1x2x2x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x2x7xf32>
  %p = poot.div %e, %z : tensor<1x2x2x7xf32>, tensor<1x2x2x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x2x7xf32>, tensor<1x2x7x32xf32>
  return %o : tensor<1x2x2x32xf32>
}
