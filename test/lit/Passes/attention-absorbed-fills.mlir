// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir
// RUN: poot-run %t.mlir --func=bias_inside_select --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=table_select_beside_padding --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=clamp_behind_padding --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=log_of_band --check --ref=%s --quiet
// Rows the masks hide whole, where only the absorbing argument makes the
// fused op agree with the graph (both average v over the row):
// RUN: poot-run %t.mlir --func=bias_inside_select --set=keep=0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,1,1,0,0,0 --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=table_select_beside_padding --set=pad=0,0,0,0,1,0,1,1 --check --ref=%s --quiet
// RUN: poot-run %t.mlir --func=clamp_behind_padding --set=pad=0,0,0,0,0,1,1,0 --check --ref=%s --quiet

// Finite fills that absorb the scores (|f| >= 2^96: s + f rounds back to
// f), read as tensor masks that average a row the graph hides whole just
// as the graph does. The padding inputs below may hide every key of a
// row, so none of these fills can stand for -inf.

// A tensor bias added inside an absorbing select, select(c, s + T, f)
// (MPT's ALiBi table, a weight): the mask is select(c, T, f), whatever T
// holds where c hides.
// CHECK-LABEL: func.func @bias_inside_select
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{.+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; the select fill -3.40282e+38 absorbs every score, so it is the additive mask of that fill{{$}}
func.func @bias_inside_select(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>,
    %bias: tensor<2x1x6xf32>, %keep: tensor<1x1x4x6xi1> {poot.name = "keep"}) -> tensor<1x2x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x6xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x6xf32>, tensor<f32>
  %sb = poot.add %ss, %bias : tensor<1x2x4x6xf32>, tensor<2x1x6xf32>
  %fill = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %keep, %sb, %fill : tensor<1x1x4x6xi1>, tensor<1x2x4x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x6xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// The same with a fill of -1e9, which does not absorb the scores: where c
// hides a key the graph's score is f, the fused op's would be s + T + f.
// CHECK-LABEL: func.func @bias_inside_select_small_fill
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN: remark: attention declined: finite mask fill -1e+09 with rows that may have no visible key (too small to absorb the scores){{$}}
func.func @bias_inside_select_small_fill(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x6x16xf32>, %v: tensor<1x2x6x16xf32>,
    %bias: tensor<2x1x6xf32>, %keep: tensor<1x1x4x6xi1>) -> tensor<1x2x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x6xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x6xf32>, tensor<f32>
  %sb = poot.add %ss, %bias : tensor<1x2x4x6xf32>, tensor<2x1x6xf32>
  %fill = poot.constant dense<-1.0e+09> : tensor<f32>
  %sm = poot.select %keep, %sb, %fill : tensor<1x1x4x6xi1>, tensor<1x2x4x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x6xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x4x6xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x6xf32>, tensor<1x2x6x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// GPT-Neo: where(causal table, s, finfo.min) + a padding mask of 0 and
// finfo.min. The causal fill cannot stand for -inf (the padding may hide a
// row's causal keys), but it absorbs the scores and the padding fill
// overflows against it, so both are tensor masks.
// CHECK-LABEL: func.func @table_select_beside_padding
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{.+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask; {{.*}}the select fill -3.40282e+38 absorbs every score, so it is the additive mask of that fill{{$}}
func.func @table_select_beside_padding(%q: tensor<2x2x4x16xf32>, %k: tensor<2x2x4x16xf32>, %v: tensor<2x2x4x16xf32>,
    %pad: tensor<2x1x1x4xi1> {poot.name = "pad"}) -> tensor<2x2x4x16xf32> {
  %tril = poot.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %both = poot.and %tril, %pad : tensor<1x1x4x4xi1>, tensor<2x1x1x4xi1>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %padm = poot.select %both, %zero, %min : tensor<2x1x4x4xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x16xf32>, tensor<2x2x16x4xf32>
  %sc = poot.select %tril, %s, %min : tensor<1x1x4x4xi1>, tensor<2x2x4x4xf32>, tensor<f32>
  %sm = poot.add %sc, %padm : tensor<2x2x4x4xf32>, tensor<2x1x4x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %p = poot.div %e, %z : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x16xf32>
  return %o : tensor<2x2x4x16xf32>
}

// XGLM: s + padding mask (0 or finfo.min), then max(., finfo.min). No
// score falls below finfo.min (s + finfo.min rounds to it), so the clamp
// moves nothing and the mask stays a tensor.
// CHECK-LABEL: func.func @clamp_behind_padding
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{.+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{.*}}
func.func @clamp_behind_padding(%q: tensor<2x2x4x16xf32>, %k: tensor<2x2x4x16xf32>, %v: tensor<2x2x4x16xf32>,
    %pad: tensor<2x1x1x4xi1> {poot.name = "pad"}) -> tensor<2x2x4x16xf32> {
  %zero = poot.constant dense<0.0> : tensor<f32>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %padm = poot.select %pad, %zero, %min : tensor<2x1x1x4xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x16xf32>, tensor<2x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x4x4xf32>, tensor<f32>
  %sm = poot.add %ss, %padm : tensor<2x2x4x4xf32>, tensor<2x1x1x4xf32>
  %cl = poot.max %sm, %min : tensor<2x2x4x4xf32>, tensor<f32>
  %m = poot.reduce_max %cl {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %d = poot.sub %cl, %m : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x4xf32>
  %p = poot.div %e, %z : tensor<2x2x4x4xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x4xf32>, tensor<2x2x4x16xf32>
  return %o : tensor<2x2x4x16xf32>
}

// log of a 0/1 table: log(convert(t <= i)) is select(t <= i, 0, -inf), the
// causal band.
// CHECK-LABEL: func.func @log_of_band
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{.+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @log_of_band(%q: tensor<1x2x5x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>) -> tensor<1x2x5x16xf32> {
  %i = poot.iota {dim = 0 : i64} : tensor<5x5xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<5x5xi32>
  %vis = poot.compare le, %t, %i : tensor<5x5xi32>, tensor<5x5xi32>
  %ind = poot.convert %vis : tensor<5x5xi1> -> tensor<5x5xf32>
  %mask = poot.log %ind : tensor<5x5xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x5x5xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x5x5xf32>, tensor<5x5xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %sm, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %p = poot.div %e, %z : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  return %o : tensor<1x2x5x16xf32>
}
