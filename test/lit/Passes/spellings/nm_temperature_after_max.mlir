// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, PyTorch: a learned per-head temperature (a [1, H, 1, 1]
// parameter, as Swin-v2-style logit scales are) applied after the max
// subtraction, torch.exp((s - s.amax(-1, keepdim=True)) * temp). The fused
// op takes one constant scale; a tensor factor is no scale, so it is
// declined and runs unfused. MHA, B = 2, H = 2, Lq = 3, Lk = 5, D = 16.

// CHECK-LABEL: func.func @nm_temperature_after_max
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_temperature_after_max(%q: tensor<2x2x3x16xf32>, %k: tensor<2x2x5x16xf32>,
                                    %v: tensor<2x2x5x16xf32>, %temp: tensor<1x2x1x1xf32>)
    -> tensor<2x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %d = poot.sub %s, %m : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  // EXPLAIN: remark: attention declined: 'poot.mul' at line [[#@LINE+1]] scales the scores by a factor that is not a constant: no scale the fused op takes{{$}}
  %ds = poot.mul %d, %temp : tensor<2x2x3x5xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %ds : tensor<2x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5xf32>, tensor<2x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x3x5xf32>, tensor<2x2x5x16xf32>
  return %o : tensor<2x2x3x16xf32>
}
