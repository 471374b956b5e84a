// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, a Gemma 2 port that adds the causal mask before the logit
// softcap: w = tanh((s * scale + mask) / 50) * 50. tanh(-inf) = -1, so a
// hidden key scores -50, not -inf, and keeps a weight exp(-50 - max) > 0.
// Not the masked attention; must decline. MHA, B = 1, H = 2, L = 5, D = 32.

// CHECK-LABEL: func.func @nm_softcap_after_mask
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: a mask is added before the scale or softcap: the score order differs from (q.k)*scale -> softcap -> +mask
func.func @nm_softcap_after_mask(%q: tensor<1x2x5x32xf32>, %k: tensor<1x2x5x32xf32>,
                                %v: tensor<1x2x5x32xf32>) -> tensor<1x2x5x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x5x32xf32>, tensor<1x2x32x5xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x5x5xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %vis = poot.compare le, %t, %i : tensor<5x5xi64>, tensor<5x5xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %cm = poot.select %vis, %zero, %ninf : tensor<5x5xi1>, tensor<f32>, tensor<f32>
  %sm0 = poot.add %ss, %cm : tensor<1x2x5x5xf32>, tensor<5x5xf32>
  %cap = poot.constant dense<50.0> : tensor<f32>
  %s1 = poot.div %sm0, %cap : tensor<1x2x5x5xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x2x5x5xf32>
  %sm = poot.mul %s2, %cap : tensor<1x2x5x5xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %sm, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %p = poot.div %e, %z : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x32xf32>
  return %o : tensor<1x2x5x32xf32>
}
