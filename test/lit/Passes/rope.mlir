// RUN: poot-opt %s --split-input-file --poot-rope | FileCheck %s
// RUN: poot-opt %s --split-input-file --poot-rope=explain=true -verify-diagnostics -o /dev/null

// The tracer's rotate-half: out = x * cos + concat(-x2, x1) * sin.
// CHECK-LABEL: func.func @half
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x4x8xf32>, %[[COS:[^:]+]]: tensor<1x1x4x8xf32>, %[[SIN:[^:]+]]: tensor<1x1x4x8xf32>)
// CHECK-NEXT: %[[R:.+]] = poot.rope %[[X]], %[[COS]], %[[SIN]] {rotary_dim = 8 : i64, style = "half"}
// CHECK-NEXT: return %[[R]]
func.func @half(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// HF as exported: cos.unsqueeze(1) is a reshape of a [B, S, D] table, the
// product is cos * x, and -x2 is x2 * -1 (still exact).
// out = (cos * x) + (rotate_half(x) * sin)
// CHECK-LABEL: func.func @half_hf
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x4x8xf32>, %[[COS:[^:]+]]: tensor<1x4x8xf32>, %[[SIN:[^:]+]]: tensor<1x4x8xf32>)
// CHECK-DAG: %[[C:.+]] = poot.reshape %[[COS]] : tensor<1x4x8xf32> -> tensor<1x1x4x8xf32>
// CHECK-DAG: %[[S:.+]] = poot.reshape %[[SIN]] : tensor<1x4x8xf32> -> tensor<1x1x4x8xf32>
// CHECK: %[[R:.+]] = poot.rope %[[X]], %[[C]], %[[S]] {rotary_dim = 8 : i64, style = "half"}
// CHECK-NEXT: return %[[R]]
func.func @half_hf(%x: tensor<1x2x4x8xf32>, %cos3: tensor<1x4x8xf32>, %sin3: tensor<1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %cos = poot.reshape %cos3 : tensor<1x4x8xf32> -> tensor<1x1x4x8xf32>
  %sin = poot.reshape %sin3 : tensor<1x4x8xf32> -> tensor<1x1x4x8xf32>
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %m1 = poot.constant dense<-1.0> : tensor<f32>
  %n = poot.mul %x2, %m1 : tensor<1x2x4x4xf32>, tensor<f32>
  %rot = poot.concat %n, %x1 {axis = -1 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %cos, %x : tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// The subtracting spelling: rot' = concat(x2, -x1) = -rot.
// out = x * cos - concat(x2, -x1) * sin
// CHECK-LABEL: func.func @half_sub
// CHECK: poot.rope %{{.+}} {rotary_dim = 8 : i64, style = "half"}
// CHECK-NOT: poot.sub
func.func @half_sub(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x1 : tensor<1x2x4x4xf32>
  %rot = poot.concat %x2, %n {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %sin, %rot : tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %out = poot.sub %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// JAX-style split halves on [B, S, H, D] with half-width [S, 1, D/2] tables:
// out = concat(x1 * c - x2 * s, x2 * c + x1 * s). The full tables are the
// half tables twice (cos = concat(c, c)), reshaped to x's rank.
// CHECK-LABEL: func.func @half_split
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x4x2x8xf32>, %[[C:[^:]+]]: tensor<4x1x4xf32>, %[[S:[^:]+]]: tensor<4x1x4xf32>)
// CHECK-DAG: %[[C4:.+]] = poot.reshape %[[C]] : tensor<4x1x4xf32> -> tensor<1x4x1x4xf32>
// CHECK-DAG: %[[S4:.+]] = poot.reshape %[[S]] : tensor<4x1x4xf32> -> tensor<1x4x1x4xf32>
// CHECK-DAG: %[[COS:.+]] = poot.concat %[[C4]], %[[C4]] {axis = 3 : i64}
// CHECK-DAG: %[[SIN:.+]] = poot.concat %[[S4]], %[[S4]] {axis = 3 : i64}
// CHECK: %[[R:.+]] = poot.rope %[[X]], %[[COS]], %[[SIN]] {rotary_dim = 8 : i64, style = "half"} : tensor<1x4x2x8xf32>, tensor<1x4x1x8xf32>, tensor<1x4x1x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @half_split(%x: tensor<1x4x2x8xf32>, %c: tensor<4x1x4xf32>, %s: tensor<4x1x4xf32>) -> tensor<1x4x2x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x2x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 4, 2, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x2x8xf32>
  %a = poot.mul %x1, %c : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %b = poot.mul %x2, %s : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %lo = poot.sub %a, %b : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>
  %d = poot.mul %x2, %c : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %e = poot.mul %x1, %s : tensor<1x4x2x4xf32>, tensor<4x1x4xf32>
  %hi = poot.add %d, %e : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8, cos/sin assembled from 2 tables}}
  %out = poot.concat %lo, %hi {axis = 3 : i64} : tensor<1x4x2x4xf32>, tensor<1x4x2x4xf32>
  return %out : tensor<1x4x2x8xf32>
}

// -----

// The tracer's interleaved (GPT-J / Meta) pairs (2i, 2i+1):
// rot = flatten(stack(-x[1::2], x[0::2])); out = x * cos + rot * sin.
// CHECK-LABEL: func.func @interleaved
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x4x8xf32>, %[[COS:[^:]+]]: tensor<1x1x4x8xf32>, %[[SIN:[^:]+]]: tensor<1x1x4x8xf32>)
// CHECK-NEXT: %[[R:.+]] = poot.rope %[[X]], %[[COS]], %[[SIN]] {rotary_dim = 8 : i64, style = "interleaved"}
// CHECK-NEXT: return %[[R]]
func.func @interleaved(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %ev = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xf32>
  %od = poot.slice %x {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xf32>
  %n = poot.neg %od : tensor<1x2x4x4xf32>
  %a = poot.reshape %n : tensor<1x2x4x4xf32> -> tensor<1x2x4x4x1xf32>
  %b = poot.reshape %ev : tensor<1x2x4x4xf32> -> tensor<1x2x4x4x1xf32>
  %pairs = poot.concat %a, %b {axis = 4 : i64} : tensor<1x2x4x4x1xf32>, tensor<1x2x4x4x1xf32>
  %rot = poot.reshape %pairs : tensor<1x2x4x4x2xf32> -> tensor<1x2x4x8xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: interleaved, rotary_dim 8 of 8}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Meta's complex multiply decomposed, on [B, S, H, D]: view x as
// [..., D/2, 2] (re, im), multiply by (c + i s), flatten back.
// re' = re * c - im * s, im' = re * s + im * c. The tables are
// [1, S, 1, D/2, 1]; cos is each c twice, laid out like the output.
// CHECK-LABEL: func.func @interleaved_complex
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x4x2x8xf32>, %[[C:[^:]+]]: tensor<1x4x1x4x1xf32>, %[[S:[^:]+]]: tensor<1x4x1x4x1xf32>)
// CHECK-DAG: %[[CC:.+]] = poot.concat %[[C]], %[[C]] {axis = 4 : i64}
// CHECK-DAG: %[[COS:.+]] = poot.reshape %[[CC]] : tensor<1x4x1x4x2xf32> -> tensor<1x4x1x8xf32>
// CHECK-DAG: %[[SS:.+]] = poot.concat %[[S]], %[[S]] {axis = 4 : i64}
// CHECK-DAG: %[[SIN:.+]] = poot.reshape %[[SS]] : tensor<1x4x1x4x2xf32> -> tensor<1x4x1x8xf32>
// CHECK: %[[R:.+]] = poot.rope %[[X]], %[[COS]], %[[SIN]] {rotary_dim = 8 : i64, style = "interleaved"}
// CHECK-NEXT: return %[[R]]
func.func @interleaved_complex(%x: tensor<1x4x2x8xf32>, %c: tensor<1x4x1x4x1xf32>, %s: tensor<1x4x1x4x1xf32>) -> tensor<1x4x2x8xf32> {
  %x5 = poot.reshape %x : tensor<1x4x2x8xf32> -> tensor<1x4x2x4x2xf32>
  %re = poot.slice %x5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 2, 4, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x2x4x2xf32>
  %im = poot.slice %x5 {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 4, 2, 4, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x2x4x2xf32>
  %rc = poot.mul %re, %c : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %is = poot.mul %im, %s : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %ore = poot.sub %rc, %is : tensor<1x4x2x4x1xf32>, tensor<1x4x2x4x1xf32>
  %rs = poot.mul %re, %s : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %ic = poot.mul %im, %c : tensor<1x4x2x4x1xf32>, tensor<1x4x1x4x1xf32>
  %oim = poot.add %rs, %ic : tensor<1x4x2x4x1xf32>, tensor<1x4x2x4x1xf32>
  %o5 = poot.concat %ore, %oim {axis = 4 : i64} : tensor<1x4x2x4x1xf32>, tensor<1x4x2x4x1xf32>
  // expected-remark @+1 {{rope fused: interleaved, rotary_dim 8 of 8, cos/sin assembled from 2 tables}}
  %out = poot.reshape %o5 : tensor<1x4x2x4x2xf32> -> tensor<1x4x2x8xf32>
  return %out : tensor<1x4x2x8xf32>
}

// -----

// rotate_every_two as a permutation and a sign vector:
// rot = x[..., [1, 0, 3, 2, ...]] * [-1, 1, -1, 1, ...].
// CHECK-LABEL: func.func @interleaved_gather
// CHECK: %[[R:.+]] = poot.rope %{{.+}} {rotary_dim = 8 : i64, style = "interleaved"}
// CHECK-NEXT: return %[[R]]
func.func @interleaved_gather(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %perm = poot.constant dense<[1, 0, 3, 2, 5, 4, 7, 6]> : tensor<8xi32>
  %sign = poot.constant dense<[-1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0]> : tensor<8xf32>
  %xp = poot.gather %x[%perm] {axis = 3 : i64} : tensor<1x2x4x8xf32>, tensor<8xi32>
  %rot = poot.mul %xp, %sign : tensor<1x2x4x8xf32>, tensor<8xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: interleaved, rotary_dim 8 of 8}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Partial rotary width (D = 64, r = 32): the first 32 channels rotate, the
// rest pass through: out = concat(rope(x[..., :32]), x[..., 32:]).
// CHECK-LABEL: func.func @partial_half
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x4x64xf32>, %[[COS:[^:]+]]: tensor<1x1x4x32xf32>, %[[SIN:[^:]+]]: tensor<1x1x4x32xf32>)
// CHECK-NEXT: %[[R:.+]] = poot.rope %[[X]], %[[COS]], %[[SIN]] {rotary_dim = 32 : i64, style = "half"} : tensor<1x2x4x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @partial_half(%x: tensor<1x2x4x64xf32>, %cos: tensor<1x1x4x32xf32>, %sin: tensor<1x1x4x32xf32>) -> tensor<1x2x4x64xf32> {
  %xr = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x64xf32>
  %x1 = poot.slice %xr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x32xf32>
  %x2 = poot.slice %xr {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 2, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x32xf32>
  %n = poot.neg %x2 : tensor<1x2x4x16xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %xc = poot.mul %xr, %cos : tensor<1x2x4x32xf32>, tensor<1x1x4x32xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x32xf32>, tensor<1x1x4x32xf32>
  %r = poot.add %xc, %rs : tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 1, 2, 4, 64>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x64xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 32 of 64}}
  %out = poot.concat %r, %pass {axis = 3 : i64} : tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>
  return %out : tensor<1x2x4x64xf32>
}

// -----

// Partial interleaved width on an odd head width (D = 96, r = 32), the
// tracer's spelling.
// CHECK-LABEL: func.func @partial_interleaved
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x3x96xf32>, %[[COS:[^:]+]]: tensor<1x1x3x32xf32>, %[[SIN:[^:]+]]: tensor<1x1x3x32xf32>)
// CHECK-NEXT: %[[R:.+]] = poot.rope %[[X]], %[[COS]], %[[SIN]] {rotary_dim = 32 : i64, style = "interleaved"} : tensor<1x2x3x96xf32>
// CHECK-NEXT: return %[[R]]
func.func @partial_interleaved(%x: tensor<1x2x3x96xf32>, %cos: tensor<1x1x3x32xf32>, %sin: tensor<1x1x3x32xf32>) -> tensor<1x2x3x96xf32> {
  %xr = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x96xf32>
  %ev = poot.slice %xr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x3x32xf32>
  %od = poot.slice %xr {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 3, 32>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x3x32xf32>
  %n = poot.neg %od : tensor<1x2x3x16xf32>
  %a = poot.reshape %n : tensor<1x2x3x16xf32> -> tensor<1x2x3x16x1xf32>
  %b = poot.reshape %ev : tensor<1x2x3x16xf32> -> tensor<1x2x3x16x1xf32>
  %pairs = poot.concat %a, %b {axis = 4 : i64} : tensor<1x2x3x16x1xf32>, tensor<1x2x3x16x1xf32>
  %rot = poot.reshape %pairs : tensor<1x2x3x16x2xf32> -> tensor<1x2x3x32xf32>
  %xc = poot.mul %xr, %cos : tensor<1x2x3x32xf32>, tensor<1x1x3x32xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x3x32xf32>, tensor<1x1x3x32xf32>
  %r = poot.add %xc, %rs : tensor<1x2x3x32xf32>, tensor<1x2x3x32xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 1, 2, 3, 96>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x96xf32>
  // expected-remark @+1 {{rope fused: interleaved, rotary_dim 32 of 96}}
  %out = poot.concat %r, %pass {axis = 3 : i64} : tensor<1x2x3x32xf32>, tensor<1x2x3x64xf32>
  return %out : tensor<1x2x3x96xf32>
}

// -----

// Partial width in split halves: concat(x1 * c - x2 * s, x2 * c + x1 * s,
// x[..., r:]) with r = 8 of D = 12.
// CHECK-LABEL: func.func @partial_split
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x3x12xf32>
// CHECK: %[[R:.+]] = poot.rope %[[X]], %{{.+}}, %{{.+}} {rotary_dim = 8 : i64, style = "half"} : tensor<1x2x3x12xf32>, tensor<1x1x3x8xf32>, tensor<1x1x3x8xf32>
// CHECK-NEXT: return %[[R]]
func.func @partial_split(%x: tensor<1x2x3x12xf32>, %c: tensor<1x1x3x4xf32>, %s: tensor<1x1x3x4xf32>) -> tensor<1x2x3x12xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 3, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x12xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 3, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x12xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 3, 12>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x3x12xf32>
  %a = poot.mul %x1, %c : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %b = poot.mul %x2, %s : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %lo = poot.sub %a, %b : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  %d = poot.mul %x2, %c : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %e = poot.mul %x1, %s : tensor<1x2x3x4xf32>, tensor<1x1x3x4xf32>
  %hi = poot.add %e, %d : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 12, cos/sin assembled from 2 tables}}
  %out = poot.concat %lo, %hi, %pass {axis = 3 : i64} : tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>
  return %out : tensor<1x2x3x12xf32>
}

// -----

// An odd head width rotated whole (D = r = 40).
// CHECK-LABEL: func.func @half_width40
// CHECK: poot.rope %{{.+}} {rotary_dim = 40 : i64, style = "half"} : tensor<1x2x2x40xf32>
func.func @half_width40(%x: tensor<1x2x2x40xf32>, %cos: tensor<1x1x2x40xf32>, %sin: tensor<1x1x2x40xf32>) -> tensor<1x2x2x40xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 2, 20>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x2x40xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 20>, limit = array<i64: 1, 2, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x2x40xf32>
  %n = poot.neg %x2 : tensor<1x2x2x20xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x2x20xf32>, tensor<1x2x2x20xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x2x40xf32>, tensor<1x1x2x40xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x2x40xf32>, tensor<1x1x2x40xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 40 of 40}}
  %out = poot.add %xc, %rs : tensor<1x2x2x40xf32>, tensor<1x2x2x40xf32>
  return %out : tensor<1x2x2x40xf32>
}

// -----

// f16 storage: the same chain, the same fused op.
// CHECK-LABEL: func.func @half_f16
// CHECK: poot.rope %{{.+}} {rotary_dim = 8 : i64, style = "half"} : tensor<1x2x4x8xf16>, tensor<1x1x4x8xf16>, tensor<1x1x4x8xf16>
func.func @half_f16(%x: tensor<1x2x4x8xf16>, %cos: tensor<1x1x4x8xf16>, %sin: tensor<1x1x4x8xf16>) -> tensor<1x2x4x8xf16> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf16>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf16>
  %n = poot.neg %x2 : tensor<1x2x4x4xf16>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf16>, tensor<1x2x4x4xf16>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf16>, tensor<1x1x4x8xf16>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf16>, tensor<1x1x4x8xf16>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf16>, tensor<1x2x4x8xf16>
  return %out : tensor<1x2x4x8xf16>
}

// -----

// bf16 storage with the tables converted from f32, as the tracer emits them;
// the converts stay table producers.
// CHECK-LABEL: func.func @interleaved_bf16
// CHECK-DAG: %[[C:.+]] = poot.convert %{{.+}} : tensor<1x1x4x8xf32> -> tensor<1x1x4x8xbf16>
// CHECK-DAG: %[[S:.+]] = poot.convert %{{.+}} : tensor<1x1x4x8xf32> -> tensor<1x1x4x8xbf16>
// CHECK: poot.rope %{{.+}}, %[[C]], %[[S]] {rotary_dim = 8 : i64, style = "interleaved"} : tensor<1x2x4x8xbf16>
func.func @interleaved_bf16(%x: tensor<1x2x4x8xbf16>, %cos32: tensor<1x1x4x8xf32>, %sin32: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xbf16> {
  %cos = poot.convert %cos32 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8xbf16>
  %sin = poot.convert %sin32 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8xbf16>
  %ev = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xbf16>
  %od = poot.slice %x {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x4x8xbf16>
  %n = poot.neg %od : tensor<1x2x4x4xbf16>
  %a = poot.reshape %n : tensor<1x2x4x4xbf16> -> tensor<1x2x4x4x1xbf16>
  %b = poot.reshape %ev : tensor<1x2x4x4xbf16> -> tensor<1x2x4x4x1xbf16>
  %pairs = poot.concat %a, %b {axis = 4 : i64} : tensor<1x2x4x4x1xbf16>, tensor<1x2x4x4x1xbf16>
  %rot = poot.reshape %pairs : tensor<1x2x4x4x2xbf16> -> tensor<1x2x4x8xbf16>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xbf16>, tensor<1x1x4x8xbf16>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xbf16>, tensor<1x1x4x8xbf16>
  // expected-remark @+1 {{rope fused: interleaved, rotary_dim 8 of 8}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xbf16>, tensor<1x2x4x8xbf16>
  return %out : tensor<1x2x4x8xbf16>
}

// -----

// MLA: q = concat(q_nope, rope(q_pe)) rotates the last 8 of 24 channels,
// which poot.rope cannot say of q; the rope fuses on the q_pe slice and the
// concat stays.
// CHECK-LABEL: func.func @rotary_last
// CHECK: %[[PE:.+]] = poot.slice %{{.+}} {limit = array<i64: 1, 2, 4, 24>, start = array<i64: 0, 0, 0, 16>
// CHECK: %[[R:.+]] = poot.rope %[[PE]], %{{.+}}, %{{.+}} {rotary_dim = 8 : i64, style = "half"} : tensor<1x2x4x8xf32>
// CHECK: poot.concat %{{.+}}, %[[R]]
func.func @rotary_last(%q: tensor<1x2x4x24xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x24xf32> {
  %nope = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x24xf32>
  %pe = poot.slice %q {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 2, 4, 24>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x24xf32>
  %x1 = poot.slice %pe {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %pe {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %pe, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %r = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  %out = poot.concat %nope, %r {axis = 3 : i64} : tensor<1x2x4x16xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x24xf32>
}

// -----

// cos and sin need not share a shape: cos [S, D] broadcasts as it is, sin
// is [1, 1, S, D].
// CHECK-LABEL: func.func @tables_differ
// CHECK-SAME: (%[[X:[^:]+]]: tensor<1x2x4x8xf32>, %[[COS:[^:]+]]: tensor<4x8xf32>, %[[SIN:[^:]+]]: tensor<1x1x4x8xf32>)
// CHECK-NEXT: %[[R:.+]] = poot.rope %[[X]], %[[COS]], %[[SIN]] {rotary_dim = 8 : i64, style = "half"} : tensor<1x2x4x8xf32>, tensor<4x8xf32>, tensor<1x1x4x8xf32>
func.func @tables_differ(%x: tensor<1x2x4x8xf32>, %cos: tensor<4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// A pass-through part out of order: the rotation still fuses on its own
// slice, and the concat keeps its parts.
// CHECK-LABEL: func.func @pass_reordered
// CHECK: %[[R:.+]] = poot.rope %{{.+}} {rotary_dim = 8 : i64, style = "half"} : tensor<1x2x4x8xf32>
// CHECK: poot.concat %[[R]], %{{.+}}, %{{.+}} {axis = 3 : i64}
func.func @pass_reordered(%x: tensor<1x2x4x16xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x16xf32> {
  %xr = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x16xf32>
  %x1 = poot.slice %xr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %xr {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %xr, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %r = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  %p1 = poot.slice %x {start = array<i64: 0, 0, 0, 12>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x16xf32>
  %p2 = poot.slice %x {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 4, 12>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x16xf32>
  %out = poot.concat %r, %p1, %p2 {axis = 3 : i64} : tensor<1x2x4x8xf32>, tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  return %out : tensor<1x2x4x16xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Declines: almost RoPE, but not the same function.
//===----------------------------------------------------------------------===//

// The inverse rotation: x * cos + concat(x2, -x1) * sin turns by -theta.
// CHECK-LABEL: func.func @backwards
// CHECK-NOT: poot.rope
func.func @backwards(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x1 : tensor<1x2x4x4xf32>
  %rot = poot.concat %x2, %n {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope declined: the rotation runs backwards: rot = concat(x2, -x1), expected concat(-x2, x1)}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// A partial width whose rotation runs backwards: the outermost op of the
// chain (the concat with the pass-through channels) explains.
// CHECK-LABEL: func.func @partial_backwards
// CHECK-NOT: poot.rope
func.func @partial_backwards(%x: tensor<1x2x4x16xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x16xf32> {
  %xr = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x16xf32>
  %x1 = poot.slice %xr {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %xr {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x1 : tensor<1x2x4x4xf32>
  %rot = poot.concat %x2, %n {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %xr, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %r = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  %pass = poot.slice %x {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x16xf32>
  // expected-remark @+1 {{rope declined: the rotation runs backwards: rot = concat(x2, -x1), expected concat(-x2, x1)}}
  %out = poot.concat %r, %pass {axis = 3 : i64} : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x16xf32>
}

// -----

// The negation forgotten: rot = concat(x2, x1).
// CHECK-LABEL: func.func @not_negated
// CHECK-NOT: poot.rope
func.func @not_negated(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %rot = poot.concat %x2, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope declined: the rotated half is not the negated second half}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Halves swapped the wrong way: rot = concat(-x1, x2) pairs each channel
// with itself.
// CHECK-LABEL: func.func @not_partners
// CHECK-NOT: poot.rope
func.func @not_partners(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x1 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x2 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope declined: rotated channel 0 reads x channel 0: neither the rotate-half partner 4 nor the interleaved partner 1}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Interleaved pairs with the sign on the odd channel: (x[2i+1], -x[2i]).
// CHECK-LABEL: func.func @interleaved_backwards
// CHECK-NOT: poot.rope
func.func @interleaved_backwards(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %perm = poot.constant dense<[1, 0, 3, 2, 5, 4, 7, 6]> : tensor<8xi32>
  %sign = poot.constant dense<[1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0]> : tensor<8xf32>
  %xp = poot.gather %x[%perm] {axis = 3 : i64} : tensor<1x2x4x8xf32>, tensor<8xi32>
  %rot = poot.mul %xp, %sign : tensor<1x2x4x8xf32>, tensor<8xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope declined: the rotation runs backwards: rot pairs are (x[2i+1], -x[2i]), expected (-x[2i+1], x[2i])}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// The x * cos term subtracted: out = rot * sin - x * cos.
// CHECK-LABEL: func.func @cos_negated
// CHECK-NOT: poot.rope
func.func @cos_negated(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope declined: the x * cos product is negated}}
  %out = poot.sub %rs, %xc : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// A third product: (x * cos + x * t) + rot * sin.
// CHECK-LABEL: func.func @three_products
// CHECK-NOT: poot.rope
func.func @three_products(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>, %t: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %xt = poot.mul %x, %t : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %s = poot.add %xc, %xt : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  // expected-remark @+1 {{rope declined: expected x * cos + rot * sin, got a sum of 3 products}}
  %out = poot.add %s, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// A rotation inside a larger sum fuses on its own: rope(x) + x * t.
// CHECK-LABEL: func.func @inside_sum
// CHECK: %[[R:.+]] = poot.rope
// CHECK: poot.add %[[R]], %{{.+}}
func.func @inside_sum(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>, %t: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %x2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %xt = poot.mul %x, %t : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope fused: half, rotary_dim 8 of 8}}
  %s = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  %out = poot.add %s, %xt : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// The rotated operand comes from another tensor: y, not x.
// CHECK-LABEL: func.func @other_tensor
// CHECK-NOT: poot.rope
func.func @other_tensor(%x: tensor<1x2x4x8xf32>, %y: tensor<1x2x4x8xf32>, %cos: tensor<1x1x4x8xf32>, %sin: tensor<1x1x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %y1 = poot.slice %y {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %y2 = poot.slice %y {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 2, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x8xf32>
  %n = poot.neg %y2 : tensor<1x2x4x4xf32>
  %rot = poot.concat %n, %y1 {axis = 3 : i64} : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x8xf32>, tensor<1x1x4x8xf32>
  // expected-remark @+1 {{rope declined: no factor of 'poot.mul' is a rearrangement (slices, negations, concats, reshapes) of the x the other products read}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// A table that broadcasts x over heads: x [1, 1, 4, 8] times cos [1, 2, 4, 8]
// is not a rotation of x.
// CHECK-LABEL: func.func @table_broadcasts_x
// CHECK-NOT: poot.rope
func.func @table_broadcasts_x(%x: tensor<1x1x4x8xf32>, %cos: tensor<1x2x4x8xf32>, %sin: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x8xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 4>, limit = array<i64: 1, 1, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x4x8xf32>
  %n = poot.neg %x2 : tensor<1x1x4x4xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  %xc = poot.mul %x, %cos : tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>
  %rs = poot.mul %rot, %sin : tensor<1x1x4x8xf32>, tensor<1x2x4x8xf32>
  // expected-remark @+1 {{rope declined: the output tensor<1x2x4x8xf32> is not laid out like x tensor<1x1x4x8xf32>}}
  %out = poot.add %xc, %rs : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
  return %out : tensor<1x2x4x8xf32>
}

// -----

// Five channels cannot pair.
// CHECK-LABEL: func.func @odd_width
// CHECK-NOT: poot.rope
func.func @odd_width(%x: tensor<1x2x4x5xf32>, %cos: tensor<1x1x4x5xf32>, %sin: tensor<1x1x4x5xf32>) -> tensor<1x2x4x5xf32> {
  %x1 = poot.slice %x {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 3>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x5xf32>
  %x2 = poot.slice %x {start = array<i64: 0, 0, 0, 3>, limit = array<i64: 1, 2, 4, 5>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x4x5xf32>
  %n = poot.neg %x2 : tensor<1x2x4x2xf32>
  %rot = poot.concat %n, %x1 {axis = 3 : i64} : tensor<1x2x4x2xf32>, tensor<1x2x4x3xf32>
  %xc = poot.mul %x, %cos : tensor<1x2x4x5xf32>, tensor<1x1x4x5xf32>
  %rs = poot.mul %rot, %sin : tensor<1x2x4x5xf32>, tensor<1x1x4x5xf32>
  // expected-remark @+1 {{rope declined: odd rotary width 5: channels cannot pair}}
  %out = poot.add %xc, %rs : tensor<1x2x4x5xf32>, tensor<1x2x4x5xf32>
  return %out : tensor<1x2x4x5xf32>
}

// -----

// Not a candidate at all (a scaled sum, nothing rearranged): no remark.
// CHECK-LABEL: func.func @not_rope
// CHECK: poot.add
func.func @not_rope(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>, %d: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %ab = poot.mul %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  %cd = poot.mul %c, %d : tensor<4x8xf32>, tensor<4x8xf32>
  %out = poot.add %ab, %cd : tensor<4x8xf32>, tensor<4x8xf32>
  return %out : tensor<4x8xf32>
}
