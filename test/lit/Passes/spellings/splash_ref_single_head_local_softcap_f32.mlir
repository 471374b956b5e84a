// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX splash attention's single-head reference, not vmapped: q [S, D],
// k and v [T, D], all of rank 2. logits = einsum('sd,td->st');
// soft_cap: logits = tanh(logits / 30) * 30; the mask a numpy table from
// LocalMask(window_size=(2, 0)) (key t visible iff i - 2 <= t <= i), in
// where(mask, logits, -0.7 * finfo(f32).max); the max-shifted softmax;
// einsum('st,td->sd'). S = 5, T = 8, D = 16.

// Fused in the strongest form: the rank-2 product is taken as one head of
// rank 3 (poot-canonicalize), so the fused op sees [1, 1, L, D] views;
// the table is the band i - 2 <= t <= i and the cap a softcap.

// CHECK-LABEL: func.func @splash_ref_single_head_local_softcap_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 1.000000e+00 : f64, softcap = 3.000000e+01 : f64, window = 3 : i64} : tensor<1x1x5x16xf32>, tensor<1x1x8x16xf32>, tensor<1x1x8x16xf32> -> tensor<1x1x5x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, softcap 30, causal, window 3
func.func @splash_ref_single_head_local_softcap_f32(%q: tensor<5x16xf32>, %k: tensor<8x16xf32>,
                                                    %v: tensor<8x16xf32>) -> tensor<5x16xf32> {
  %mask = poot.constant dense<[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [false, true, true, true, false, false, false, false], [false, false, true, true, true, false, false, false]]> : tensor<5x8xi1>
  %kt = poot.transpose %k {perm = array<i64: 1, 0>} : tensor<8x16xf32>
  %lg = poot.matmul %q, %kt : tensor<5x16xf32>, tensor<16x8xf32>
  %cap = poot.constant dense<30.0> : tensor<f32>
  %l1 = poot.div %lg, %cap : tensor<5x8xf32>, tensor<f32>
  %l2 = poot.tanh %l1 : tensor<5x8xf32>
  %l3 = poot.mul %l2, %cap : tensor<5x8xf32>, tensor<f32>
  %neg = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %pl = poot.select %mask, %l3, %neg : tensor<5x8xi1>, tensor<5x8xf32>, tensor<f32>
  %m = poot.reduce_max %pl {axis = 1 : i64} : tensor<5x8xf32>
  %m2 = poot.reshape %m : tensor<5xf32> -> tensor<5x1xf32>
  %d = poot.sub %pl, %m2 : tensor<5x8xf32>, tensor<5x1xf32>
  %e = poot.exp %d : tensor<5x8xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64} : tensor<5x8xf32>
  %z2 = poot.reshape %z : tensor<5xf32> -> tensor<5x1xf32>
  %p = poot.div %e, %z2 : tensor<5x8xf32>, tensor<5x1xf32>
  %o = poot.matmul %p, %v : tensor<5x8xf32>, tensor<8x16xf32>
  return %o : tensor<5x16xf32>
}
