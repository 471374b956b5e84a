// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A variant of jax_dpa_xla_gqa_window_bf16 (once a near miss): the window
// mask built with iotas over the grouped logits shape [B, K, G, T, S]
// reads the group index too (row - (g + 1) <= col: each query head of a
// group looks back a different distance). The causal part is shared and
// read as the band; the per-member window stays one tensor mask per query
// head, and the grouping stays (n_rep 3).

// CHECK-LABEL: func.func @jax_gqa_window_per_group_member
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x6x8x8xf32>) {causal, n_rep = 3 : i64, scale = 0.17677{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.176777, tensor mask, causal{{$}}
func.func @jax_gqa_window_per_group_member(%q: tensor<1x8x6x32xbf16>, %k: tensor<1x8x2x32xbf16>,
                                       %v: tensor<1x8x2x32xbf16>) -> tensor<1x8x6x32xbf16> {
  %q5 = poot.reshape %q : tensor<1x8x6x32xbf16> -> tensor<1x8x2x3x32xbf16>
  %qf = poot.convert %q5 : tensor<1x8x2x3x32xbf16> -> tensor<1x8x2x3x32xf32>
  %kf = poot.convert %k : tensor<1x8x2x32xbf16> -> tensor<1x8x2x32xf32>
  %qt = poot.transpose %qf {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x8x2x3x32xf32>
  %kt4 = poot.transpose %kf {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x2x32xf32>
  %kt = poot.reshape %kt4 : tensor<1x2x32x8xf32> -> tensor<1x2x1x32x8xf32>
  %lg = poot.matmul %qt, %kt : tensor<1x2x3x8x32xf32>, tensor<1x2x1x32x8xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ls = poot.mul %lg, %c : tensor<1x2x3x8x8xf32>, tensor<f32>
  %tr = poot.iota {dim = 0 : i64} : tensor<8x8xi32>
  %tc = poot.iota {dim = 1 : i64} : tensor<8x8xi32>
  %tril = poot.compare le, %tc, %tr : tensor<8x8xi32>, tensor<8x8xi32>
  %row = poot.iota {dim = 3 : i64} : tensor<1x2x3x8x8xi32>
  %col = poot.iota {dim = 4 : i64} : tensor<1x2x3x8x8xi32>
  %g = poot.iota {dim = 2 : i64} : tensor<1x2x3x8x8xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %lw = poot.add %g, %one : tensor<1x2x3x8x8xi32>, tensor<i32>
  %rl = poot.sub %row, %lw : tensor<1x2x3x8x8xi32>, tensor<1x2x3x8x8xi32>
  %left = poot.compare le, %rl, %col : tensor<1x2x3x8x8xi32>, tensor<1x2x3x8x8xi32>
  %right = poot.compare le, %col, %row : tensor<1x2x3x8x8xi32>, tensor<1x2x3x8x8xi32>
  %win = poot.and %left, %right : tensor<1x2x3x8x8xi1>, tensor<1x2x3x8x8xi1>
  %comb = poot.and %tril, %win : tensor<8x8xi1>, tensor<1x2x3x8x8xi1>
  %neg = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %pl = poot.select %comb, %ls, %neg : tensor<1x2x3x8x8xi1>, tensor<1x2x3x8x8xf32>, tensor<f32>
  %m = poot.reduce_max %pl {axis = 4 : i64, keepdim} : tensor<1x2x3x8x8xf32>
  %d = poot.sub %pl, %m : tensor<1x2x3x8x8xf32>, tensor<1x2x3x8x1xf32>
  %e = poot.exp %d : tensor<1x2x3x8x8xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x8x8xf32>
  %p = poot.div %e, %z : tensor<1x2x3x8x8xf32>, tensor<1x2x3x8x1xf32>
  %pb = poot.convert %p : tensor<1x2x3x8x8xf32> -> tensor<1x2x3x8x8xbf16>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x32xbf16>
  %v5 = poot.reshape %vh : tensor<1x2x8x32xbf16> -> tensor<1x2x1x8x32xbf16>
  %oh = poot.matmul %pb, %v5 : tensor<1x2x3x8x8xbf16>, tensor<1x2x1x8x32xbf16>
  %ot = poot.transpose %oh {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x2x3x8x32xbf16>
  %o = poot.reshape %ot : tensor<1x8x2x3x32xbf16> -> tensor<1x8x6x32xbf16>
  return %o : tensor<1x8x6x32xbf16>
}
