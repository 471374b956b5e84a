// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, PyTorch: a port that folded a sign into the scale applied
// after the max subtraction, torch.exp((s - s.amax(-1, keepdim=True)) *
// -scale). The exponent is then -scale * (s - max) >= 0: it can overflow
// where the fused softmax (which subtracts the max of what it
// exponentiates) does not, so it is declined and runs unfused.
// MHA, B = 1, H = 2, Lq = 2, Lk = 6, D = 16.

// CHECK-LABEL: func.func @nm_negative_scale_after_max
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_negative_scale_after_max(%q: tensor<1x2x2x16xf32>, %k: tensor<1x2x6x16xf32>,
                                       %v: tensor<1x2x6x16xf32>) -> tensor<1x2x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x2x16xf32>, tensor<1x2x16x6xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x2x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x2x6xf32>, tensor<1x2x2x1xf32>
  %c = poot.constant dense<-0.25> : tensor<f32>
  // EXPLAIN: remark: attention declined: 'poot.mul' at line [[#@LINE+1]] scales the scores by -0.25 after 'poot.sub' at line [[#@LINE-2]] subtracts the row max: only a positive constant keeps the exponent at or below 0 there (exp could overflow where the fused softmax does not){{$}}
  %ds = poot.mul %d, %c : tensor<1x2x2x6xf32>, tensor<f32>
  %e = poot.exp %ds : tensor<1x2x2x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x2x6xf32>
  %p = poot.div %e, %z : tensor<1x2x2x6xf32>, tensor<1x2x2x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x2x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x2x16xf32>
}
