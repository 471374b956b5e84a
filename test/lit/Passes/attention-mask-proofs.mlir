// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir
// RUN: poot-run %t.mlir --func=const_mask_rows_kept --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=const_mask_row_empty --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=band_max_left --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=segment_band_finite --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=segment_two_sources --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=slopes_vary_by_row --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=slopes_computed_scaled --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=const_additive_rows_kept --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=const_additive_row_empty --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=const_additive_huge_penalty --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=product_bias_fill_hides --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=product_bias_fill_too_small --check --ref=%s --quiet

// The mask proofs beside the band: constant masks checked row by row under
// an empty-row guard, a band bounded through min/max, a segment compare
// proven to keep each row's own key, and ALiBi slopes computed in the
// graph. Each case that must not fuse (or must keep its mask) says why.

// A constant table mask (a gather of a trace-time table by the key
// arange) that keeps a key on every row: the guard never fires.
// CHECK-LABEL: func.func @const_mask_rows_kept
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; empty-row guard never fires{{$}}
func.func @const_mask_rows_kept(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x5x16xf32>,
                                %v: tensor<1x1x5x16xf32>) -> tensor<1x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x1x4x16xf32>, tensor<1x1x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x1x4x5xf32>, tensor<f32>
  %starts = poot.constant dense<[0, 2, 1, 3, 0]> : tensor<5xi64>
  %n = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %st = poot.gather %starts[%n] {axis = 0 : i64} : tensor<5xi64>, tensor<5xi64>
  %st2 = poot.reshape %st : tensor<5xi64> -> tensor<1x5xi64>
  %m = poot.iota {dim = 0 : i64} : tensor<4x1xi64>
  %keep = poot.compare ge, %m, %st2 : tensor<4x1xi64>, tensor<1x5xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %s, %ninf : tensor<4x5xi1>, tensor<1x1x4x5xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %d = poot.sub %x, %mx : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %e = poot.exp %d : tensor<1x1x4x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %p = poot.div %e, %z : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x1x4x5xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x1x4x5xi1> -> tensor<1x1x4x5xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x1x4x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x1x4x1xi1>, tensor<f32>, tensor<1x1x4x5xf32>
  %o = poot.matmul %ps, %v : tensor<1x1x4x5xf32>, tensor<1x1x5x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// The same table with every start above 0: row 0 keeps no key, so the
// guard fires there. It tests the very scores the softmax normalises
// (all(x == -inf)), so the rows it zeroes are exactly the rows with no
// visible key: fused with zero_empty_rows.
// CHECK-LABEL: func.func @const_mask_row_empty
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.*}} mask(%{{.+}} : tensor<1x1x4x5xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them{{$}}
func.func @const_mask_row_empty(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x5x16xf32>,
                                %v: tensor<1x1x5x16xf32>) -> tensor<1x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x1x4x16xf32>, tensor<1x1x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x1x4x5xf32>, tensor<f32>
  %starts = poot.constant dense<[1, 2, 1, 3, 2]> : tensor<5xi64>
  %n = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %st = poot.gather %starts[%n] {axis = 0 : i64} : tensor<5xi64>, tensor<5xi64>
  %st2 = poot.reshape %st : tensor<5xi64> -> tensor<1x5xi64>
  %m = poot.iota {dim = 0 : i64} : tensor<4x1xi64>
  %keep = poot.compare ge, %m, %st2 : tensor<4x1xi64>, tensor<1x5xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %s, %ninf : tensor<4x5xi1>, tensor<1x1x4x5xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %d = poot.sub %x, %mx : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %e = poot.exp %d : tensor<1x1x4x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %p = poot.div %e, %z : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x1x4x5xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x1x4x5xi1> -> tensor<1x1x4x5xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x1x4x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x1x4x1xi1>, tensor<f32>, tensor<1x1x4x5xf32>
  %o = poot.matmul %ps, %v : tensor<1x1x4x5xf32>, tensor<1x1x5x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// A band bounded on the left through max: key t is hidden where
// max(i - 2, 0) > t, i.e. where t < i - 2 (t < 0 never holds), and on
// the right where t > i (causal): causal with window 3. The min/max split
// and the decided `t < 0` leave the band alone.
// CHECK-LABEL: func.func @band_max_left
// CHECK: poot.attention {{.+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, window = 3 : i64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal, window 3{{$}}
func.func @band_max_left(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>,
                         %v: tensor<1x2x6x16xf32>) -> tensor<1x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x1xi64>
  %t = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %z = poot.constant dense<0> : tensor<i64>
  %i2 = poot.sub %i, %two : tensor<6x1xi64>, tensor<i64>
  %lo = poot.max %i2, %z : tensor<6x1xi64>, tensor<i64>
  %left = poot.compare gt, %lo, %t : tensor<6x1xi64>, tensor<6xi64>
  %right = poot.compare gt, %t, %i : tensor<6xi64>, tensor<6x1xi64>
  %hide = poot.or %left, %right : tensor<6x6xi1>, tensor<6x6xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %hide, %ninf, %s : tensor<6x6xi1>, tensor<f32>, tensor<1x2x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x6x16xf32>
}

// A segment compare (ids from a graph input) beside a causal band, under
// a finite fill: every row keeps its own key (same segment, t = i), so the
// fill stands for -inf and the band splits out of the tensor mask.
// CHECK-LABEL: func.func @segment_band_finite
// CHECK: poot.attention {{.+}} mask({{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal{{$}}
func.func @segment_band_finite(%q: tensor<2x2x6x16xf32>, %k: tensor<2x2x6x16xf32>,
                               %v: tensor<2x2x6x16xf32>,
                               %seg: tensor<2x6xi32> {poot.range = array<i64: 0, 3>})
    -> tensor<2x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x2x6x6xf32>, tensor<f32>
  %sq = poot.reshape %seg : tensor<2x6xi32> -> tensor<2x1x6x1xi32>
  %sk = poot.reshape %seg : tensor<2x6xi32> -> tensor<2x1x1x6xi32>
  %same = poot.compare eq, %sq, %sk : tensor<2x1x6x1xi32>, tensor<2x1x1x6xi32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x1xi64>
  %t = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %causal = poot.compare le, %t, %i : tensor<6xi64>, tensor<6x1xi64>
  %keep = poot.and %same, %causal : tensor<2x1x6x6xi1>, tensor<6x6xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %x = poot.select %keep, %s, %min : tensor<2x1x6x6xi1>, tensor<2x2x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  return %o : tensor<2x2x6x16xf32>
}

// The query segments and the key segments from two inputs: a row may
// match no key, so the finite fill is not -inf and nothing splits (the
// whole condition stays the additive mask of the absorbing fill).
// CHECK-LABEL: func.func @segment_two_sources
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; mask kept as a tensor: finite mask fill -3.40282e+38 with rows that may have no visible key; the select fill -3.40282e+38 absorbs every score, so it is the additive mask of that fill{{$}}
func.func @segment_two_sources(%q: tensor<2x2x6x16xf32>, %k: tensor<2x2x6x16xf32>,
                               %v: tensor<2x2x6x16xf32>,
                               %qseg: tensor<2x6xi32> {poot.range = array<i64: 0, 3>},
                               %kseg: tensor<2x6xi32> {poot.range = array<i64: 0, 3>})
    -> tensor<2x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x2x6x6xf32>, tensor<f32>
  %sq = poot.reshape %qseg : tensor<2x6xi32> -> tensor<2x1x6x1xi32>
  %sk = poot.reshape %kseg : tensor<2x6xi32> -> tensor<2x1x1x6xi32>
  %same = poot.compare eq, %sq, %sk : tensor<2x1x6x1xi32>, tensor<2x1x1x6xi32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x1xi64>
  %t = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %causal = poot.compare le, %t, %i : tensor<6xi64>, tensor<6x1xi64>
  %keep = poot.and %same, %causal : tensor<2x1x6x6xi1>, tensor<6x6xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %x = poot.select %keep, %s, %min : tensor<2x1x6x6xi1>, tensor<2x2x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  return %o : tensor<2x2x6x16xf32>
}

// "Slopes" computed from the query-row arange, not the head's: the bias
// (t - i) * 2^-(i+1) is no ALiBi (its factor varies along the row) and
// stays a tensor.
// CHECK-LABEL: func.func @slopes_vary_by_row
// CHECK: poot.attention {{.+}} mask({{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: alibi
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal{{$}}
func.func @slopes_vary_by_row(%q: tensor<1x2x5x16xf32>, %k: tensor<1x2x5x16xf32>,
                              %v: tensor<1x2x5x16xf32>) -> tensor<1x2x5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x2x5x5xf32>, tensor<f32>
  %qi = poot.iota {dim = 2 : i64} : tensor<1x2x5x5xi64>
  %ki = poot.iota {dim = 3 : i64} : tensor<1x2x5x5xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %r1 = poot.add %qi, %one : tensor<1x2x5x5xi64>, tensor<i64>
  %r1f = poot.convert %r1 : tensor<1x2x5x5xi64> -> tensor<1x2x5x5xf32>
  %rn = poot.neg %r1f : tensor<1x2x5x5xf32>
  %two = poot.constant dense<2.0> : tensor<f32>
  %slope = poot.pow %two, %rn : tensor<f32>, tensor<1x2x5x5xf32>
  %dist = poot.sub %ki, %qi : tensor<1x2x5x5xi64>, tensor<1x2x5x5xi64>
  %distf = poot.convert %dist : tensor<1x2x5x5xi64> -> tensor<1x2x5x5xf32>
  %bias = poot.mul %distf, %slope : tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>
  %sb = poot.add %s, %bias : tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>
  %keep = poot.compare ge, %qi, %ki : tensor<1x2x5x5xi64>, tensor<1x2x5x5xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %sb, %ninf : tensor<1x2x5x5xi1>, tensor<1x2x5x5xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %p = poot.div %e, %zs : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  return %o : tensor<1x2x5x16xf32>
}

// HF's get_alibi_slopes in the graph for 4 heads: base 2^-2 raised to the
// powers 1..4 (a head arange plus one), as [1, H, 1, 1], times the key
// distance: ALiBi with slopes 1/4, 1/16, 1/64, 1/256.
// CHECK-LABEL: func.func @slopes_computed_scaled
// CHECK: poot.attention {{.+}} {alibi_slopes = array<f64: 2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03>, causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal, alibi{{$}}
func.func @slopes_computed_scaled(%q: tensor<1x4x5x16xf32>, %k: tensor<1x4x5x16xf32>,
                                  %v: tensor<1x4x5x16xf32>) -> tensor<1x4x5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x4x5x16xf32>, tensor<1x4x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x4x5x5xf32>, tensor<f32>
  %h = poot.iota {dim = 0 : i64} : tensor<4xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %pw = poot.add %h, %one : tensor<4xi32>, tensor<i32>
  %pwf = poot.convert %pw : tensor<4xi32> -> tensor<4xf32>
  %base = poot.constant dense<2.500000e-01> : tensor<f32>
  %sl = poot.pow %base, %pwf : tensor<f32>, tensor<4xf32>
  %sl4 = poot.reshape %sl : tensor<4xf32> -> tensor<1x4x1x1xf32>
  %i = poot.iota {dim = 0 : i64} : tensor<5x1xi64>
  %t = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %dist = poot.sub %t, %i : tensor<5xi64>, tensor<5x1xi64>
  %distf = poot.convert %dist : tensor<5x5xi64> -> tensor<5x5xf32>
  %bias = poot.mul %sl4, %distf : tensor<1x4x1x1xf32>, tensor<5x5xf32>
  %sb = poot.add %s, %bias : tensor<1x4x5x5xf32>, tensor<1x4x5x5xf32>
  %hide = poot.compare gt, %t, %i : tensor<5xi64>, tensor<5x1xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %hide, %ninf, %sb : tensor<5x5xi1>, tensor<f32>, tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %zs : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x5x5xf32>, tensor<1x4x5x16xf32>
  return %o : tensor<1x4x5x16xf32>
}


// A constant table added to the scores (0, small biases and -inf) under the
// empty-row guard: every row keeps a key with a finite bias, so the guard
// never fires and the table is the fused op's mask. Its -inf cells lie
// above t = i + 3 only where the band t <= i + 3 ends, so that band is read
// as well (causal at offset 3) and the table stays.
// CHECK-LABEL: func.func @const_additive_rows_kept
// CHECK: poot.attention {{.+}} mask({{.+}}) pos({{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal at offset 3; empty-row guard never fires; band read off the table's -inf cells{{$}}
func.func @const_additive_rows_kept(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x5x16xf32>,
    %v: tensor<1x1x5x16xf32>) -> tensor<1x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x1x4x16xf32>, tensor<1x1x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s1 = poot.mul %s0, %c : tensor<1x1x4x5xf32>, tensor<f32>
  %tab = poot.constant dense<[[0.0, 0xFF800000, 0xFF800000, -2.0, 0xFF800000], [0xFF800000, 0.5, 0xFF800000, 0xFF800000, 0xFF800000], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0.0], [1.0, 0.0, 0xFF800000, 0.0, -3.0]]> : tensor<4x5xf32>
  %x = poot.add %s1, %tab : tensor<1x1x4x5xf32>, tensor<4x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %d = poot.sub %x, %mx : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %e = poot.exp %d : tensor<1x1x4x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %p = poot.div %e, %z : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x1x4x5xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x1x4x5xi1> -> tensor<1x1x4x5xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x1x4x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x1x4x1xi1>, tensor<f32>, tensor<1x1x4x5xf32>
  %o = poot.matmul %ps, %v : tensor<1x1x4x5xf32>, tensor<1x1x5x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// The same table with row 1 all -inf: the guard zeroes that row, where the
// softmax gives NaN; fused with zero_empty_rows, which gives 0 there too.
// CHECK-LABEL: func.func @const_additive_row_empty
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.*}} mask(%{{.+}} : tensor<1x1x4x5xf32>) pos(%{{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal at offset 3; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them; band read off the table's -inf cells{{$}}
func.func @const_additive_row_empty(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x5x16xf32>,
    %v: tensor<1x1x5x16xf32>) -> tensor<1x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x1x4x16xf32>, tensor<1x1x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s1 = poot.mul %s0, %c : tensor<1x1x4x5xf32>, tensor<f32>
  %tab = poot.constant dense<[[0.0, 0xFF800000, 0xFF800000, -2.0, 0xFF800000], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0.0], [1.0, 0.0, 0xFF800000, 0.0, -3.0]]> : tensor<4x5xf32>
  %x = poot.add %s1, %tab : tensor<1x1x4x5xf32>, tensor<4x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %d = poot.sub %x, %mx : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %e = poot.exp %d : tensor<1x1x4x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %p = poot.div %e, %z : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x1x4x5xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x1x4x5xi1> -> tensor<1x1x4x5xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x1x4x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x1x4x1xi1>, tensor<f32>, tensor<1x1x4x5xf32>
  %o = poot.matmul %ps, %v : tensor<1x1x4x5xf32>, tensor<1x1x5x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// Row 1 keeps one key only through a -1e30 penalty: finite in f32, but a
// penalty that large is not counted as keeping a key (in f16 it would
// overflow to -inf), so the proof that the guard never fires fails; the
// guard zeroes exactly the rows the fused op finds empty (every score
// -inf), so it fuses with zero_empty_rows.
// CHECK-LABEL: func.func @const_additive_huge_penalty
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.*}} mask(%{{.+}} : tensor<1x1x4x5xf32>) pos(%{{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal at offset 3; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them; band read off the table's -inf cells{{$}}
func.func @const_additive_huge_penalty(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x5x16xf32>,
    %v: tensor<1x1x5x16xf32>) -> tensor<1x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x1x4x16xf32>, tensor<1x1x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s1 = poot.mul %s0, %c : tensor<1x1x4x5xf32>, tensor<f32>
  %tab = poot.constant dense<[[0.0, 0xFF800000, 0xFF800000, -2.0, 0xFF800000], [0xFF800000, -1.0e+30, 0xFF800000, 0xFF800000, 0xFF800000], [0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0.0], [1.0, 0.0, 0xFF800000, 0.0, -3.0]]> : tensor<4x5xf32>
  %x = poot.add %s1, %tab : tensor<1x1x4x5xf32>, tensor<4x5xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %d = poot.sub %x, %mx : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %e = poot.exp %d : tensor<1x1x4x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %p = poot.div %e, %z : tensor<1x1x4x5xf32>, tensor<1x1x4x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x1x4x5xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x1x4x5xi1> -> tensor<1x1x4x5xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x1x4x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x1x4x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x1x4x1xi1>, tensor<f32>, tensor<1x1x4x5xf32>
  %o = poot.matmul %ps, %v : tensor<1x1x4x5xf32>, tensor<1x1x5x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// A relative-position bias computed from a product (a slice of q . r^T,
// as Transformer-XL's BD term) beside a causal select with a finite fill: the
// bias is held to the scores' own bound, so a fill that hides keys under
// two such terms (-1e9) stands for -inf and the mask is causal.
// CHECK-LABEL: func.func @product_bias_fill_hides
// CHECK: poot.attention {{.+}} mask({{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal; a bias added before the scale, multiplied by it{{$}}
func.func @product_bias_fill_hides(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>,
    %v: tensor<1x2x6x16xf32>, %r: tensor<8x16xf32>) -> tensor<1x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %ac = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %rt = poot.transpose %r {perm = array<i64: 1, 0>} : tensor<8x16xf32>
  %bd0 = poot.matmul %q, %rt : tensor<1x2x6x16xf32>, tensor<16x8xf32>
  %bd = poot.slice %bd0 {start = array<i64: 0, 0, 0, 2>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xf32>
  %sum = poot.add %ac, %bd : tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %sum, %c : tensor<1x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x1xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<1x6xi64>
  %keep = poot.compare le, %t, %i : tensor<1x6xi64>, tensor<6x1xi64>
  %fill = poot.constant dense<-1.000000e+09> : tensor<f32>
  %x = poot.select %keep, %s, %fill : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %p = poot.div %e, %z : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x6x16xf32>
}

// The same with a fill of -1e4: enough beside the scores alone, but not
// beside a bias that may move a kept key as far again, so it is not read
// as -inf and the graph is declined with that reason.
// CHECK-LABEL: func.func @product_bias_fill_too_small
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN: remark: attention declined: finite mask fill -10000 beside 1 bias(es) computed from products, which may outgrow it{{$}}
func.func @product_bias_fill_too_small(%q: tensor<1x2x6x16xf32>, %k: tensor<1x2x6x16xf32>,
    %v: tensor<1x2x6x16xf32>, %r: tensor<8x16xf32>) -> tensor<1x2x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %ac = poot.matmul %q, %kt : tensor<1x2x6x16xf32>, tensor<1x2x16x6xf32>
  %rt = poot.transpose %r {perm = array<i64: 1, 0>} : tensor<8x16xf32>
  %bd0 = poot.matmul %q, %rt : tensor<1x2x6x16xf32>, tensor<16x8xf32>
  %bd = poot.slice %bd0 {start = array<i64: 0, 0, 0, 2>, limit = array<i64: 1, 2, 6, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x8xf32>
  %sum = poot.add %ac, %bd : tensor<1x2x6x6xf32>, tensor<1x2x6x6xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %sum, %c : tensor<1x2x6x6xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<6x1xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<1x6xi64>
  %keep = poot.compare le, %t, %i : tensor<1x6xi64>, tensor<6x1xi64>
  %fill = poot.constant dense<-1.000000e+04> : tensor<f32>
  %x = poot.select %keep, %s, %fill : tensor<6x6xi1>, tensor<1x2x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %e = poot.exp %d : tensor<1x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf32>
  %p = poot.div %e, %z : tensor<1x2x6x6xf32>, tensor<1x2x6x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x6x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x6x16xf32>
}
