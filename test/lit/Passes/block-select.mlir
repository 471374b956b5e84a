// RUN: poot-opt %s --split-input-file --poot-block-select | FileCheck %s
// RUN: poot-opt %s --split-input-file --poot-block-select=explain=true -verify-diagnostics -o /dev/null

// poot-block-select on what poot-attention leaves of a sparse indexer: a
// poot.attention whose tensor mask is the block selection. Each case is the
// tracer's decode block (B = 1, 2 query heads sharing 1 key head, 16 keys,
// blocks of 4, top 2) with one thing changed. The fused cases check the ops
// they become, the declined ones the reason (as a remark) and that the
// attention stays.

// The tracer's decode: s' = t > pos ? -inf : s, block score = max of 4 keys,
// top 2 blocks; visible = (any_k(top[k] == t / 4) or t / 4 == pos / 4) and
// t <= pos. The whole chain goes: what is left is the two sparse ops.
// CHECK-LABEL: func.func @decode
// CHECK-SAME: (%[[Q:[^:]+]]: {{[^,]+}}, %[[K:[^:]+]]: {{[^,]+}}, %[[V:[^:]+]]: {{[^,]+}}, %[[S:[^:]+]]: {{[^,]+}}, %[[POS:[^:]+]]: tensor<i32>)
// CHECK-NEXT: %[[S3:.+]] = poot.reshape %[[S]] : tensor<1x1x1x16xf32> -> tensor<1x1x16xf32>
// CHECK-NEXT: %[[B:.+]] = poot.block_topk %[[S3]] pos(%[[POS]] : tensor<i32>) {k = 2 : i64, ratio = 4 : i64} : tensor<1x1x16xf32> -> tensor<1x1x2xi32>
// CHECK-NEXT: %[[O:.+]] = poot.selected_attention %[[Q]], %[[K]], %[[V]], %[[B]] pos(%[[POS]] : tensor<i32>) {n_rep = 2 : i64, ratio = 4 : i64, scale = 1.250000e-01 : f64}
// CHECK-NEXT: return %[[O]]
func.func @decode(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 4 keys from pos, n_rep 2, scale 0.125; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Prefill from position 0: qpos = i, no pos operand on either op.
// CHECK-LABEL: func.func @prefill
// CHECK: %[[B:.+]] = poot.block_topk %{{.+}} {k = 2 : i64, ratio = 2 : i64} : tensor<1x8x8xf32> -> tensor<1x8x2xi32>
// CHECK: poot.selected_attention %{{.+}}, %{{.+}}, %{{.+}}, %[[B]] {n_rep = 2 : i64, ratio = 2 : i64, scale = 1.250000e-01 : f64}
func.func @prefill(%q: tensor<1x2x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>, %s: tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %qpos = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x8xi32>, tensor<1x1x8x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x8x8xi1>, tensor<f32>, tensor<1x1x8x8xf32>
  %sb = poot.reshape %sh : tensor<1x1x8x8xf32> -> tensor<1x1x8x4x2xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x8x4x2xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x8x4xf32>
  %r = poot.constant dense<2> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x8xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x8x2xi32> -> tensor<1x1x8x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x8xi32> -> tensor<1x1x1x1x8xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x8x2x1xi32>, tensor<1x1x1x1x8xi32>
  %hiti = poot.convert %hit : tensor<1x1x8x2x8xi1> -> tensor<1x1x8x2x8xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x8x2x8xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x8x8xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x8x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x8xi32>, tensor<1x1x8x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x8x8xi1>, tensor<1x1x8x8xi1>
  %past = poot.not %hidden : tensor<1x1x8x8xi1>
  %vis = poot.and %cand, %past : tensor<1x1x8x8xi1>, tensor<1x1x8x8xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x8x8xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 2 keys from i, n_rep 2, scale 0.125; a row visits at most 6 of 8 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x8x8xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

// A chunk of 2 tokens per batch row at its own position: qpos = pos[b] + i.
// CHECK-LABEL: func.func @chunk_per_row
// CHECK-SAME: %[[POS:[^:]+]]: tensor<2xi32>)
// CHECK: %[[B:.+]] = poot.block_topk %{{.+}} pos(%[[POS]] : tensor<2xi32>) {k = 2 : i64, ratio = 4 : i64} : tensor<2x2x16xf32> -> tensor<2x2x2xi32>
// CHECK: poot.selected_attention %{{.+}}, %{{.+}}, %{{.+}}, %[[B]] pos(%[[POS]] : tensor<2xi32>)
func.func @chunk_per_row(%q: tensor<2x2x2x8xf32>, %k: tensor<2x1x16x8xf32>, %v: tensor<2x1x16x8xf32>, %s: tensor<2x1x2x16xf32>, %pos: tensor<2xi32>) -> tensor<2x2x2x8xf32> {
  %p = poot.reshape %pos : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x2x1xi32>
  %qpos = poot.add %p, %i : tensor<2x1x1x1xi32>, tensor<1x1x2x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<2x1x2x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<2x1x2x16xi1>, tensor<f32>, tensor<2x1x2x16xf32>
  %sb = poot.reshape %sh : tensor<2x1x2x16xf32> -> tensor<2x1x2x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<2x1x2x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<2x1x2x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<2x1x2x2xi32> -> tensor<2x1x2x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<2x1x2x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<2x1x2x2x16xi1> -> tensor<2x1x2x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<2x1x2x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<2x1x2x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<2x1x2x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<2x1x2x1xi32>
  %cand = poot.or %sel, %own : tensor<2x1x2x16xi1>, tensor<2x1x2x16xi1>
  %past = poot.not %hidden : tensor<2x1x2x16xi1>
  %vis = poot.and %cand, %past : tensor<2x1x2x16xi1>, tensor<2x1x2x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<2x1x2x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 4 keys from pos + i, n_rep 2, scale 0.125; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<2x1x2x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<2x2x2x8xf32>, tensor<2x1x16x8xf32>, tensor<2x1x16x8xf32> -> tensor<2x2x2x8xf32>
  return %o : tensor<2x2x2x8xf32>
}

// -----

// Paged keys: the pools and the read map carry over; logical key t is pool
// row read[b, t].
// CHECK-LABEL: func.func @paged
// CHECK-SAME: %[[READ:[^:]+]]: tensor<1x16xi32>)
// CHECK: poot.selected_attention %{{.+}} read(%[[READ]] : tensor<1x16xi32>) pos(%{{.+}} : tensor<i32>) {n_rep = 2 : i64, ratio = 4 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<32x1x8xf32>, tensor<32x1x8xf32>, tensor<1x1x2xi32>
func.func @paged(%q: tensor<1x2x1x8xf32>, %k: tensor<32x1x8xf32>, %v: tensor<32x1x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>, %read: tensor<1x16xi32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: paged, top 2 blocks of 4 keys from pos, n_rep 2, scale 0.125; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v read(%read : tensor<1x16xi32>) mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<32x1x8xf32>, tensor<32x1x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The score transform rides along: s = 30 * tanh((q.k * 0.125) / 30).
// CHECK-LABEL: func.func @softcap
// CHECK: poot.selected_attention {{.+}} {n_rep = 2 : i64, ratio = 4 : i64, scale = 1.250000e-01 : f64, softcap = 3.000000e+01 : f64}
func.func @softcap(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 4 keys from pos, n_rep 2, scale 0.125, softcap 30; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64, softcap = 3.000000e+01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Other spellings of the same mask: the scores kept where t <= pos, the hits
// counted by a sum with keepdim and tested 0 < count, the own block compared
// the other way round, and the mask given as hidden = not(own or selected) or
// t > pos, selected to -inf.
// CHECK-LABEL: func.func @spellings
// CHECK: poot.block_topk
// CHECK: poot.selected_attention
func.func @spellings(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %le = poot.compare le, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %le, %s, %ninf : tensor<1x1x1x16xi1>, tensor<1x1x1x16xf32>, tensor<f32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %anyk = poot.reduce_sum %hiti {axis = 3 : i64, keepdim} : tensor<1x1x1x2x16xi32>
  %any = poot.reshape %anyk : tensor<1x1x1x1x16xi32> -> tensor<1x1x1x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare lt, %zero, %any : tensor<i32>, tensor<1x1x1x16xi32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %qb, %kb : tensor<1x1x1x1xi32>, tensor<1x1x1x16xi32>
  %cand = poot.or %own, %sel : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %ncand = poot.not %cand : tensor<1x1x1x16xi1>
  %hide = poot.or %ncand, %hidden : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %hide, %ninf, %z : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 4 keys from pos, n_rep 2, scale 0.125; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// One indexer score row shared by both batch rows: the blocks are chosen once
// and broadcast.
// CHECK-LABEL: func.func @shared_scores
// CHECK: %[[B:.+]] = poot.block_topk %{{.+}} : tensor<1x1x16xf32> -> tensor<1x1x2xi32>
// CHECK: %[[BB:.+]] = poot.broadcast %[[B]] {shape = array<i64: 2, 1, 2>}
// CHECK: poot.selected_attention %{{.+}}, %{{.+}}, %{{.+}}, %[[BB]]
func.func @shared_scores(%q: tensor<2x2x1x8xf32>, %k: tensor<2x1x16x8xf32>, %v: tensor<2x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<2x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 4 keys from pos, n_rep 2, scale 0.125; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<2x2x1x8xf32>, tensor<2x1x16x8xf32>, tensor<2x1x16x8xf32> -> tensor<2x2x1x8xf32>
  return %o : tensor<2x2x1x8xf32>
}

// -----

// The causal bound may be the attention's own flag at the same position.
// CHECK-LABEL: func.func @causal_attribute
// CHECK: poot.selected_attention
func.func @causal_attribute(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  // visible = selected or own; the attention's causal flag adds t <= pos
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %cand, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 4 keys from pos, n_rep 2, scale 0.125; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) pos(%pos : tensor<i32>) {causal, n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A query at pos + 1 everywhere (the token after the one just written): the
// ops read the position pos + 1.
// CHECK-LABEL: func.func @offset_position
// CHECK-SAME: %[[POS:[^:]+]]: tensor<i32>)
// CHECK: %[[P1:.+]] = poot.add %[[POS]], %{{.+}} : tensor<i32>, tensor<i32>
// CHECK: poot.block_topk %{{.+}} pos(%[[P1]] : tensor<i32>)
// CHECK: poot.selected_attention {{.+}} pos(%{{.+}} : tensor<i32>)
func.func @offset_position(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %p = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %qpos = poot.add %p, %one : tensor<1x1x1x1xi32>, tensor<i32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection fused: top 2 blocks of 4 keys from pos + 1, n_rep 2, scale 0.125; a row visits at most 12 of 16 keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A live length bounds the keys besides the mask: selected_attention has none.
// CHECK-LABEL: func.func @live_length
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @live_length(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>, %len: tensor<1xi32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: a live length: selected_attention has no len operand}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) len(%len : tensor<1xi32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A split (MLA) key has no selected form.
// CHECK-LABEL: func.func @split_key
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @split_key(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x4xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>, %ks: tensor<1x1x16x4xf32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: a split key: selected_attention has no k_shared operand}}
  %o = poot.attention %q, %k, %v k_shared(%ks : tensor<1x1x16x4xf32>) mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x4xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A sliding window on top of the selection.
// CHECK-LABEL: func.func @window
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @window(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: a sliding window or ALiBi term besides the selection}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) pos(%pos : tensor<i32>) {causal, n_rep = 2 : i64, scale = 1.250000e-01 : f64, window = 8 : i64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A bias added to the selection mask: s + (0 | -inf) + 0.5 is not the selection.
// CHECK-LABEL: func.func @extra_bias
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @extra_bias(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask0 = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  %bias = poot.constant dense<5.000000e-01> : tensor<1x1x1x16xf32>
  %mask = poot.add %mask0, %bias : tensor<1x1x1x16xf32>, tensor<1x1x1x16xf32>
  // expected-remark @+1 {{block selection declined: the mask is not select(visible, 0, -inf) alone}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A finite fill (-1e9) still weighs the hidden keys when nothing is visible.
// CHECK-LABEL: func.func @finite_fill
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @finite_fill(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %big = poot.constant dense<-1.000000e+09> : tensor<f32>
  %mask = poot.select %vis, %z, %big : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the mask is not select(visible, 0, -inf) alone}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Two disjunctions in the visible condition.
// CHECK-LABEL: func.func @two_ors
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @two_ors(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %cand2 = poot.or %own, %sel : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis0 = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %vis = poot.and %vis0, %cand2 : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: more than one or in the visible condition}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// visible = (selected or own) and t <= pos and t > pos - 8: a window term.
// CHECK-LABEL: func.func @window_term
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @window_term(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %w = poot.constant dense<8> : tensor<i32>
  %oldest = poot.sub %qpos, %w : tensor<1x1x1x1xi32>, tensor<i32>
  %recent = poot.compare gt, %t, %oldest : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %vis0 = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %vis = poot.and %vis0, %recent : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: a term of the visible condition is neither the block selection nor the causal bound t <= pos + i}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// visible = selected and t <= pos: the row's unfinished block is not always kept.
// CHECK-LABEL: func.func @no_own_block
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @no_own_block(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  // no own block
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %sel, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: no own-block term: the row's own block is visible only when selected}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// visible = (selected or own or t == 0) and t <= pos: key 0 as a sink.
// CHECK-LABEL: func.func @attention_sink
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @attention_sink(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %first = poot.compare eq, %t, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %cand0 = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %cand = poot.or %cand0, %first : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the or has a term beyond the selected and the own block}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The own term reads t / 4 == pos / 2: not the row's own block.
// CHECK-LABEL: func.func @own_other_ratio
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @own_other_ratio(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %r2 = poot.constant dense<2> : tensor<i32>
  %qb2 = poot.div %qpos, %r2 : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb2 : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the or's other term is not the own block t / ratio == (pos + i) / ratio}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// selected = any_k(...) > 1 never holds: not the selection.
// CHECK-LABEL: func.func @count_above_one
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @count_above_one(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %one = poot.constant dense<1> : tensor<i32>
  %sel = poot.compare gt, %any, %one : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the selected term is not any_k(top[k] == t / ratio) != 0}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The hits compare the block ids with the key index t, not t / 4.
// CHECK-LABEL: func.func @hit_key_not_block
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @hit_key_not_block(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %t : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the selected term does not compare top-k indices, laid along the batch and query rows, with t / ratio}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Blocks ranked by the sum of their scores, not the max.
// CHECK-LABEL: func.func @block_sum
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @block_sum(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_sum %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the top-k does not rank block maxima (a reduce_max over the last axis)}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Block j = keys j, j + 4, j + 8, j + 12 (a transpose before the max).
// CHECK-LABEL: func.func @strided_blocks
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @strided_blocks(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb0 = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %sb = poot.transpose %sb0 {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the block maxima are not over the keys split into blocks [..., Lk] -> [..., Lk / ratio, ratio]}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Future keys are not hidden before the block max: a future block can win.
// CHECK-LABEL: func.func @no_fill
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @no_fill(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  // the raw scores go straight to the block max
  %sb = poot.reshape %s : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the indexer scores are not hidden by a -inf select before the block max}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The indexer hides the past (t < pos) instead of the future.
// CHECK-LABEL: func.func @fill_hides_past
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @fill_hides_past(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %before = poot.compare lt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %before, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the indexer scores are not hidden exactly past the query position (t > pos + i)}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// Block maxima over 4 keys, but the mask reads blocks of 2 keys.
// CHECK-LABEL: func.func @ratio_mismatch
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @ratio_mismatch(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %r2 = poot.constant dense<2> : tensor<i32>
  %kb = poot.div %t, %r2 : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r2 : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: blocks of 4 keys in the block maxima, 2 in the selected term, 2 in the own block}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The indexer also hides the row's own key (t >= pos): it ranks at pos - 1.
// CHECK-LABEL: func.func @fill_other_position
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @fill_other_position(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %atpos = poot.compare ge, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %atpos, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the indexer, the own block and the causal bound read different query positions}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// visible = selected or own: a selected block past the row would be seen.
// CHECK-LABEL: func.func @no_causal
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @no_causal(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  // no causal bound
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %cand, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: no causal bound t <= pos + i on the visible keys}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The attention's causal flag bounds t <= 0 (no pos), the selection reads pos.
// CHECK-LABEL: func.func @causal_attribute_at_zero
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @causal_attribute_at_zero(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  // no causal bound
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %cand, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the attention's causal bound reads another position than the selection}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {causal, n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The indexer ranks the blocks of 8 keys, the attention reads 16.
// CHECK-LABEL: func.func @short_indexer
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @short_indexer(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x8xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %t8 = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hidden8 = poot.compare gt, %t8, %qpos : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden8, %ninf, %s : tensor<1x1x1x8xi1>, tensor<f32>, tensor<1x1x1x8xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x8xf32> -> tensor<1x1x1x2x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x2x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x2xf32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<1x1x1x2xi32> -> tensor<1x1x1x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<1x1x1x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<1x1x1x2x16xi1> -> tensor<1x1x1x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<1x1x1x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<1x1x1x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x1x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %cand = poot.or %sel, %own : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %past = poot.not %hidden : tensor<1x1x1x16xi1>
  %vis = poot.and %cand, %past : tensor<1x1x1x16xi1>, tensor<1x1x1x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the indexer ranks 8 keys, the attention has 16}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// The indexer scores laid out [row, 1, batch, key].
// CHECK-LABEL: func.func @indexer_layout
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @indexer_layout(%q: tensor<2x2x2x8xf32>, %k: tensor<2x1x16x8xf32>, %v: tensor<2x1x16x8xf32>, %s: tensor<2x1x2x16xf32>) -> tensor<2x2x2x8xf32> {
  %qpos = poot.iota {dim = 2 : i64} : tensor<1x1x2x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %qposT = poot.iota {dim = 0 : i64} : tensor<2x1x1x1xi32>
  %hiddenT = poot.compare gt, %t, %qposT : tensor<1x1x1x16xi32>, tensor<2x1x1x1xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x2x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hiddenT, %ninf, %s : tensor<2x1x1x16xi1>, tensor<f32>, tensor<2x1x2x16xf32>
  %sb = poot.reshape %sh : tensor<2x1x2x16xf32> -> tensor<2x1x2x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<2x1x2x4x4xf32>
  %vals, %topT = poot.topk %bs {k = 2 : i64} : tensor<2x1x2x4xf32>
  %top = poot.transpose %topT {perm = array<i64: 2, 1, 0, 3>} : tensor<2x1x2x2xi32>
  %r = poot.constant dense<4> : tensor<i32>
  %kb = poot.div %t, %r : tensor<1x1x1x16xi32>, tensor<i32>
  %topc = poot.reshape %top : tensor<2x1x2x2xi32> -> tensor<2x1x2x2x1xi32>
  %kbr = poot.reshape %kb : tensor<1x1x1x16xi32> -> tensor<1x1x1x1x16xi32>
  %hit = poot.compare eq, %topc, %kbr : tensor<2x1x2x2x1xi32>, tensor<1x1x1x1x16xi32>
  %hiti = poot.convert %hit : tensor<2x1x2x2x16xi1> -> tensor<2x1x2x2x16xi32>
  %any = poot.reduce_max %hiti {axis = 3 : i64} : tensor<2x1x2x2x16xi32>
  %zero = poot.constant dense<0> : tensor<i32>
  %sel = poot.compare ne, %any, %zero : tensor<2x1x2x16xi32>, tensor<i32>
  %qb = poot.div %qpos, %r : tensor<1x1x2x1xi32>, tensor<i32>
  %own = poot.compare eq, %kb, %qb : tensor<1x1x1x16xi32>, tensor<1x1x2x1xi32>
  %cand = poot.or %sel, %own : tensor<2x1x2x16xi1>, tensor<1x1x2x16xi1>
  %past = poot.not %hidden : tensor<1x1x2x16xi1>
  %vis = poot.and %cand, %past : tensor<2x1x2x16xi1>, tensor<1x1x2x16xi1>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %vis, %z, %ninf : tensor<2x1x2x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: the indexer scores are not laid out [batch, row, key]}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<2x1x2x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<2x2x2x8xf32>, tensor<2x1x16x8xf32>, tensor<2x1x16x8xf32> -> tensor<2x2x2x8xf32>
  return %o : tensor<2x2x2x8xf32>
}

// -----

// Only the causal bound is left (the top-k reaches the mask through
// t <= pos + (top - top)): there is no selection to fuse.
// CHECK-LABEL: func.func @causal_only
// CHECK: poot.attention
// CHECK-NOT: poot.selected_attention
func.func @causal_only(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %s: tensor<1x1x1x16xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sh = poot.select %hidden, %ninf, %s : tensor<1x1x1x16xi1>, tensor<f32>, tensor<1x1x1x16xf32>
  %sb = poot.reshape %sh : tensor<1x1x1x16xf32> -> tensor<1x1x1x4x4xf32>
  %bs = poot.reduce_max %sb {axis = 4 : i64} : tensor<1x1x1x4x4xf32>
  %vals, %top = poot.topk %bs {k = 2 : i64} : tensor<1x1x1x4xf32>
  %top0 = poot.reduce_max %top {axis = 3 : i64, keepdim} : tensor<1x1x1x2xi32>
  %nil = poot.sub %top0, %top0 : tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>
  %qpos2 = poot.add %qpos, %nil : tensor<1x1x1x1xi32>, tensor<1x1x1x1xi32>
  %le2 = poot.compare le, %t, %qpos2 : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %le2, %z, %ninf : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  // expected-remark @+1 {{block selection declined: no (selected or own block) term in the visible condition}}
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}

// -----

// A mask no top-k computes is not a candidate: no remark, nothing changes.
// CHECK-LABEL: func.func @not_a_candidate
// CHECK: poot.attention
func.func @not_a_candidate(%q: tensor<1x2x1x8xf32>, %k: tensor<1x1x16x8xf32>, %v: tensor<1x1x16x8xf32>, %pos: tensor<i32>) -> tensor<1x2x1x8xf32> {
  %qpos = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hidden = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %z = poot.constant dense<0.000000e+00> : tensor<f32>
  %mask = poot.select %hidden, %ninf, %z : tensor<1x1x1x16xi1>, tensor<f32>, tensor<f32>
  %o = poot.attention %q, %k, %v mask(%mask : tensor<1x1x1x16xf32>) {n_rep = 2 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x1x8xf32>, tensor<1x1x16x8xf32>, tensor<1x1x16x8xf32> -> tensor<1x2x1x8xf32>
  return %o : tensor<1x2x1x8xf32>
}
