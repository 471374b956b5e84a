// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss of the ALiBi spread rule: a decode step over 2048 cached keys
// with ALiBi slopes 1 and 0.5 (slope * (t - pos)) and a BERT-style causal
// fill of -10000. Along one row the bias spreads by up to 2047, so a
// hidden key's score can sit 2047 above the fill: -10000 + 2047 is above
// the -8192 a fill must reach to flush exp to 0 under the score bound. The
// fill is not read as hiding keys: the causal mask stays a tensor (the
// fused op adds the same values) beside the ALiBi meaning.
// B = 1, H = 2, Lq = 1, Lk = 2048, D = 16.

// CHECK-LABEL: func.func @nm_alibi_finite_fill_spread
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{[^)]+}}) pos(%{{[^)]+}}) {alibi_slopes = array<f64: 1.000000e+00, 5.000000e-01>, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, alibi{{.*}}; mask kept as a tensor: finite mask fill -10000 under an ALiBi bias that may outgrow it
func.func @nm_alibi_finite_fill_spread(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x2048x16xf32>,
                                       %v: tensor<1x2x2048x16xf32>,
                                       %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 2047>})
    -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x2048x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x2048xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x2048xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x2048xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %rel = poot.sub %t, %p4 : tensor<1x1x1x2048xi32>, tensor<1x1x1x1xi32>
  %relf = poot.convert %rel : tensor<1x1x1x2048xi32> -> tensor<1x1x1x2048xf32>
  %slopes = poot.constant dense<[[[[1.0]], [[0.5]]]]> : tensor<1x2x1x1xf32>
  %alibi = poot.mul %relf, %slopes : tensor<1x1x1x2048xf32>, tensor<1x2x1x1xf32>
  %sa = poot.add %ss, %alibi : tensor<1x2x1x2048xf32>, tensor<1x2x1x2048xf32>
  %vis = poot.compare le, %t, %p4 : tensor<1x1x1x2048xi32>, tensor<1x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %fill = poot.constant dense<-10000.0> : tensor<f32>
  %mask = poot.select %vis, %zero, %fill : tensor<1x1x1x2048xi1>, tensor<f32>, tensor<f32>
  %sm = poot.add %sa, %mask : tensor<1x2x1x2048xf32>, tensor<1x1x1x2048xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x2048xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x2048xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x2048xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x2048xf32>
  %p = poot.div %e, %z : tensor<1x2x1x2048xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x2048xf32>, tensor<1x2x2048x16xf32>
  return %o : tensor<1x2x1x16xf32>
}
