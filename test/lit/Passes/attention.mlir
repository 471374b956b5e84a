// RUN: poot-opt %s --split-input-file --poot-attention | FileCheck %s
// RUN: poot-opt %s --split-input-file --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// poot-attention: every key form and mask meaning it fuses, and every reason
// it declines. Each function is one candidate; the EXPLAIN lines are its
// remark (explain=true reports a fusion as it happens and a decline once the
// driver settles).

//===----------------------------------------------------------------------===//
// Forms that fuse
//===----------------------------------------------------------------------===//

// out = softmax(q . k * 0.25) . v
// CHECK-LABEL: func.func @dense
// CHECK: %[[O:.+]] = poot.attention %arg0, %arg1, %arg2 {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.exp
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @dense(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// Query head h reads key head h / 2 (repeat_kv as reshape/broadcast/reshape).
// CHECK-LABEL: func.func @gqa
// CHECK: poot.attention %arg0, %arg1, %arg2 {n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25{{$}}
func.func @gqa(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %kr5 = poot.reshape %k : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %krb = poot.broadcast %kr5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xf32>
  %kr = poot.reshape %krb : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
  %vr5 = poot.reshape %v : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %vrb = poot.broadcast %vr5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xf32>
  %vr = poot.reshape %vrb : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xf32>, tensor<1x4x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x1x8xf32>, tensor<1x4x8x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// One key head broadcast by the matmuls to all four query heads.
// CHECK-LABEL: func.func @mqa
// CHECK: poot.attention %arg0, %arg1, %arg2 {n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25{{$}}
func.func @mqa(%q: tensor<1x4x1x16xf32>, %k: tensor<1x1x8x16xf32>, %v: tensor<1x1x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xf32>, tensor<1x1x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x1x8xf32>, tensor<1x1x8x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// out = softmax(q . k * 0.25 + mask) . v with one mask for every head (Hm = 1)
// CHECK-LABEL: func.func @mask_shared
// CHECK: poot.attention %arg0, %arg1, %arg2 mask(%arg3 : tensor<1x1x1x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @mask_shared(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x1x8xf32>, tensor<1x1x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// A mask per query head (Hm = Hq); a [Lq, Lk]-less [Hq, 1, Lk] mask is
// brought to rank 4.
// CHECK-LABEL: func.func @mask_per_head
// CHECK: %[[M:.+]] = poot.reshape %arg3 : tensor<2x1x8xf32> -> tensor<1x2x1x8xf32>
// CHECK: poot.attention %arg0, %arg1, %arg2 mask(%[[M]] : tensor<1x2x1x8xf32>)
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @mask_per_head(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<2x1x8xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %sm = poot.add %mask, %ss : tensor<2x1x8xf32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// ALiBi (BLOOM): slope[h] * (t - i) added to a causal prefill.
// CHECK-LABEL: func.func @alibi
// CHECK: poot.attention %arg0, %arg1, %arg2 {alibi_slopes = array<f64: 2.500000e-01, 6.250000e-02>, causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal, alibi{{$}}
func.func @alibi(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x4xi32>
  %hid = poot.compare gt, %t, %i : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<1x1x4x4xf32>
  %zero = poot.constant dense<0.0> : tensor<1x1x4x4xf32>
  %causal = poot.select %hid, %ninf, %zero : tensor<1x1x4x4xi1>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  %rel = poot.sub %t, %i : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %relf = poot.convert %rel : tensor<1x1x4x4xi32> -> tensor<1x1x4x4xf32>
  %slopes = poot.constant dense<[[[[2.5e-01]], [[6.25e-02]]]]> : tensor<1x2x1x1xf32>
  %bias = poot.mul %relf, %slopes : tensor<1x1x4x4xf32>, tensor<1x2x1x1xf32>
  %mask = poot.add %causal, %bias : tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// -----

// s = 30 * tanh((q . k * 0.25) / 30)
// CHECK-LABEL: func.func @softcap
// CHECK: poot.attention %arg0, %arg1, %arg2 {n_rep = 1 : i64, scale = 2.500000e-01 : f64, softcap = 3.000000e+01 : f64}
// CHECK-NOT: poot.tanh
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, softcap 30{{$}}
func.func @softcap(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %cap = poot.constant dense<3.0e+01> : tensor<f32>
  %s1 = poot.div %ss, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x2x1x8xf32>
  %s3 = poot.mul %cap, %s2 : tensor<f32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %s3 {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s3, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// MLA's split key: k = concat(k_nope, broadcast(k_pe)), one rope key for
// every head, read once.
// CHECK-LABEL: func.func @split_key
// CHECK: poot.attention %arg0, %arg1, %arg3 k_shared(%arg2 : tensor<1x1x8x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x2x1x24xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x1x16xf32>
// EXPLAIN: remark: attention fused: split attention, n_rep 1, scale 0.25{{$}}
func.func @split_key(%q: tensor<1x2x1x24xf32>, %kn: tensor<1x2x8x16xf32>, %kp: tensor<1x1x8x8xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kpb = poot.broadcast %kp {shape = array<i64: 1, 2, 8, 8>} : tensor<1x1x8x8xf32>
  %k = poot.concat %kn, %kpb {axis = 3 : i64} : tensor<1x2x8x16xf32>, tensor<1x2x8x8xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x24xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x24xf32>, tensor<1x2x24x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// Paged: k = pool[read] with read declared inside [0, 16), the pool's slots:
// the op reads the pools through the map.
// CHECK-LABEL: func.func @paged
// CHECK: poot.attention %arg0, %arg1, %arg2 read(%arg3 : tensor<1x8xi32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x2x1x16xf32>, tensor<16x2x16xf32>, tensor<16x2x16xf32> -> tensor<1x2x1x16xf32>
// CHECK-NOT: poot.gather
// EXPLAIN: remark: attention fused: paged attention, n_rep 1, scale 0.25{{$}}
func.func @paged(%q: tensor<1x2x1x16xf32>, %kpool: tensor<16x2x16xf32>, %vpool: tensor<16x2x16xf32>,
                 %read: tensor<1x8xi32> {poot.slot = "slot_map", poot.range = array<i64: 0, 16>}) -> tensor<1x2x1x16xf32> {
  %kg = poot.gather %kpool[%read] {axis = 0 : i64} : tensor<16x2x16xf32>, tensor<1x8xi32>
  %k = poot.transpose %kg {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xf32>
  %vg = poot.gather %vpool[%read] {axis = 0 : i64} : tensor<16x2x16xf32>, tensor<1x8xi32>
  %v = poot.transpose %vg {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// The same graph with no declared range on the read map: nothing proves the
// words inside the pool, so the op takes the gathered view (the gather keeps
// its run-time bounds check).
// CHECK-LABEL: func.func @paged_unproven
// CHECK: %[[KG:.+]] = poot.gather %arg1[%arg3]
// CHECK: %[[K:.+]] = poot.transpose %[[KG]]
// CHECK: %[[VG:.+]] = poot.gather %arg2[%arg3]
// CHECK: %[[V:.+]] = poot.transpose %[[VG]]
// CHECK: poot.attention %arg0, %[[K]], %[[V]] {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<1x2x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25; read map not proven inside the pool of 16 slots, kept the gathered view{{$}}
func.func @paged_unproven(%q: tensor<1x2x1x16xf32>, %kpool: tensor<16x2x16xf32>, %vpool: tensor<16x2x16xf32>,
                          %read: tensor<1x8xi32>) -> tensor<1x2x1x16xf32> {
  %kg = poot.gather %kpool[%read] {axis = 0 : i64} : tensor<16x2x16xf32>, tensor<1x8xi32>
  %k = poot.transpose %kg {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xf32>
  %vg = poot.gather %vpool[%read] {axis = 0 : i64} : tensor<16x2x16xf32>, tensor<1x8xi32>
  %v = poot.transpose %vg {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// The live form: rows t >= len[b] of k and v are zeroed and their scores
// masked; len is declared inside [1, 8], so the op visits len[b] keys.
// CHECK-LABEL: func.func @live_declared
// CHECK: poot.attention %arg0, %arg1, %arg2 len(%arg3 : tensor<2xi32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, live length{{$}}
func.func @live_declared(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                         %len: tensor<2xi32> {poot.slot = "len", poot.range = array<i64: 1, 9>}) -> tensor<2x2x1x16xf32> {
  %len4 = poot.reshape %len : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %vl = poot.select %live, %v, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %vis = poot.compare lt, %col, %len4 : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %vl : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}

// -----

// The live length clamped into [1, 8] by an index_guard whose witness is a
// validation output: an out-of-range len fails the run, so the clamp proves
// the bound.
// CHECK-LABEL: func.func @live_guard_witnessed
// CHECK: %[[LEN:.+]], %[[OK:.+]] = poot.index_guard %arg3
// CHECK: %[[O:.+]] = poot.attention %arg0, %arg1, %arg2 len(%[[LEN]] : tensor<2xi32>)
// CHECK: return %[[O]], %[[OK]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, live length{{$}}
func.func @live_guard_witnessed(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                                %len: tensor<2xi32> {poot.slot = "len"})
    -> (tensor<2x2x1x16xf32>, tensor<i1> {poot.validation}) {
  %clamped, %ok = poot.index_guard %len {lo = 1 : i64, hi = 8 : i64} : tensor<2xi32>
  %len4 = poot.reshape %clamped : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %vl = poot.select %live, %v, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %vis = poot.compare lt, %col, %len4 : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %vl : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o, %ok : tensor<2x2x1x16xf32>, tensor<i1>
}

// -----

// The same clamp with its witness dropped: an out-of-range len would be
// silently clamped into a valid-looking one, so the clamp proves nothing.
// CHECK-LABEL: func.func @live_guard_unwitnessed
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: live length bounded only by an index_guard whose witness is not a validation output{{$}}
func.func @live_guard_unwitnessed(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                                  %len: tensor<2xi32> {poot.slot = "len"}) -> tensor<2x2x1x16xf32> {
  %clamped, %ok = poot.index_guard %len {lo = 1 : i64, hi = 8 : i64} : tensor<2xi32>
  %len4 = poot.reshape %clamped : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %vl = poot.select %live, %v, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %vis = poot.compare lt, %col, %len4 : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %vl : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}

// -----

// A witnessed clamp into [0, 8]: len = 0 passes the guard, so the bound
// 1 <= len is still unproven.
// CHECK-LABEL: func.func @live_guard_allows_zero
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: live length not proven inside [1, 8]{{$}}
func.func @live_guard_allows_zero(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                                  %len: tensor<2xi32> {poot.slot = "len"})
    -> (tensor<2x2x1x16xf32>, tensor<i1> {poot.validation}) {
  %clamped, %ok = poot.index_guard %len {lo = 0 : i64, hi = 8 : i64} : tensor<2xi32>
  %len4 = poot.reshape %clamped : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %vl = poot.select %live, %v, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %vis = poot.compare lt, %col, %len4 : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %vl : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o, %ok : tensor<2x2x1x16xf32>, tensor<i1>
}

// -----

// A live length with no declared range at all.
// CHECK-LABEL: func.func @live_unproven
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: live length not proven inside [1, 8]{{$}}
func.func @live_unproven(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                         %len: tensor<2xi32>) -> tensor<2x2x1x16xf32> {
  %len4 = poot.reshape %len : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %vl = poot.select %live, %v, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %vis = poot.compare lt, %col, %len4 : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %vl : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}

// -----

// Key and value rows zeroed past len, but the scores not masked by it: the
// zero keys would still take weight exp(0 - m).
// CHECK-LABEL: func.func @live_unmasked_scores
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: key rows are zeroed past a length the scores are not masked by{{$}}
func.func @live_unmasked_scores(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                                %len: tensor<2xi32> {poot.slot = "len", poot.range = array<i64: 1, 9>}) -> tensor<2x2x1x16xf32> {
  %len4 = poot.reshape %len : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %vl = poot.select %live, %v, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %vl : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}

// -----

// Only the key rows are bounded by len.
// CHECK-LABEL: func.func @live_key_only
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: key and value rows are bounded by different lengths{{$}}
func.func @live_key_only(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                         %len: tensor<2xi32> {poot.slot = "len", poot.range = array<i64: 1, 9>}) -> tensor<2x2x1x16xf32> {
  %len4 = poot.reshape %len : tensor<2xi32> -> tensor<2x1x1x1xi32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x1x8x1xi32>
  %live = poot.compare lt, %row, %len4 : tensor<1x1x8x1xi32>, tensor<2x1x1x1xi32>
  %zero = poot.constant dense<0.0> : tensor<2x2x8x16xf32>
  %kl = poot.select %live, %k, %zero : tensor<2x1x8x1xi1>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
  %col = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %vis = poot.compare lt, %col, %len4 : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %kt = poot.transpose %kl {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<2x1x1x8xi1>, tensor<2x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}

//===----------------------------------------------------------------------===//
// Mask meanings
//===----------------------------------------------------------------------===//

// -----

// Decode: key t hidden where t > pos; causal at the position pos.
// CHECK-LABEL: func.func @causal_pos
// CHECK: poot.attention %arg0, %arg1, %arg2 pos(%arg3 : tensor<i32>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal from pos{{$}}
func.func @causal_pos(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
                      %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>}) -> tensor<1x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<1x1x1x8xf32>
  %zero = poot.constant dense<0.0> : tensor<1x1x1x8xf32>
  %mask = poot.select %hid, %ninf, %zero : tensor<1x1x1x8xi1>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x1x8xf32>, tensor<1x1x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// A sliding window of 3 at per-row positions pos[b]: visible iff
// pos[b] - 3 < t <= pos[b].
// CHECK-LABEL: func.func @window_pos
// CHECK: %[[POS:.+]] = poot.reshape %arg3 : tensor<2x1x1x1xi32> -> tensor<2xi32>
// CHECK: poot.attention %arg0, %arg1, %arg2 pos(%[[POS]] : tensor<2xi32>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, window = 3 : i64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal, window 3 from pos{{$}}
func.func @window_pos(%q: tensor<2x2x1x16xf32>, %k: tensor<2x2x8x16xf32>, %v: tensor<2x2x8x16xf32>,
                      %pos: tensor<2x1x1x1xi32> {poot.range = array<i64: 0, 8>}) -> tensor<2x2x1x16xf32> {
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %future = poot.compare gt, %t, %pos : tensor<1x1x1x8xi32>, tensor<2x1x1x1xi32>
  %back = poot.sub %pos, %t : tensor<2x1x1x1xi32>, tensor<1x1x1x8xi32>
  %w = poot.constant dense<3> : tensor<i32>
  %old = poot.compare ge, %back, %w : tensor<2x1x1x8xi32>, tensor<i32>
  %hid = poot.or %future, %old : tensor<2x1x1x8xi1>, tensor<2x1x1x8xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<2x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %ss : tensor<2x1x1x8xi1>, tensor<f32>, tensor<2x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x8xf32>, tensor<2x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}

// -----

// Prefill without pos: row i sees t <= i (iota against iota).
// CHECK-LABEL: func.func @causal_iota
// CHECK: poot.attention %arg0, %arg1, %arg2 {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @causal_iota(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %i = poot.iota {dim = 0 : i64} : tensor<4x4xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<4x4xi32>
  %vis = poot.compare le, %t, %i : tensor<4x4xi32>, tensor<4x4xi32>
  %vis4 = poot.reshape %vis : tensor<4x4xi1> -> tensor<1x1x4x4xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis4, %ss, %ninf : tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// -----

// A constant additive mask of 0 and -inf shaped as a tril shifted by one:
// t <= i + 1 is causal at the position 1.
// CHECK-LABEL: func.func @causal_constant_offset
// CHECK: %[[POS:.+]] = poot.constant dense<1> : tensor<i64>
// CHECK: poot.attention %arg0, %arg1, %arg2 pos(%[[POS]] : tensor<i64>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal at offset 1{{$}}
func.func @causal_constant_offset(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x3x16xf32> {
  %mask = poot.constant dense<[[0.0, 0.0, 0xFF800000, 0xFF800000], [0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<3x4xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x4xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x3x4xf32>, tensor<3x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x3x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x3x4xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x4xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// ALiBi together with a causal bound one key past the query position: the
// offset cannot move into pos (ALiBi reads pos too), so the whole mask stays
// a tensor.
// CHECK-LABEL: func.func @alibi_causal_offset
// CHECK: poot.attention %arg0, %arg1, %arg2 mask(
// CHECK-NOT: alibi_slopes
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; mask kept as a tensor: causal offset is not the query position{{$}}
func.func @alibi_causal_offset(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x4xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %i1 = poot.add %i, %one : tensor<1x1x4x1xi32>, tensor<i32>
  %hid = poot.compare gt, %t, %i1 : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<1x1x4x4xf32>
  %zero = poot.constant dense<0.0> : tensor<1x1x4x4xf32>
  %causal = poot.select %hid, %ninf, %zero : tensor<1x1x4x4xi1>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  %rel = poot.sub %t, %i : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %relf = poot.convert %rel : tensor<1x1x4x4xi32> -> tensor<1x1x4x4xf32>
  %slopes = poot.constant dense<[[[[2.5e-01]], [[6.25e-02]]]]> : tensor<1x2x1x1xf32>
  %bias = poot.mul %relf, %slopes : tensor<1x1x4x4xf32>, tensor<1x2x1x1xf32>
  %mask = poot.add %causal, %bias : tensor<1x1x4x4xf32>, tensor<1x2x4x4xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// -----

// Visible iff t <= i and t >= i + 1: no key at all; the op has no empty
// window, so the mask stays a tensor (every row is 0/0, as unfused).
// CHECK-LABEL: func.func @empty_window
// CHECK: poot.attention %arg0, %arg1, %arg2 mask(
// CHECK-NOT: window
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; mask kept as a tensor: empty sliding window{{$}}
func.func @empty_window(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x4xi32>
  %past = poot.compare le, %t, %i : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %ahead = poot.compare gt, %t, %i : tensor<1x1x1x4xi32>, tensor<1x1x4x1xi32>
  %vis = poot.and %past, %ahead : tensor<1x1x4x4xi1>, tensor<1x1x4x4xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// -----

// A -inf select before a positive scale hides the same keys
// (-inf * 0.25 = -inf): fused as if selected after it.
// CHECK-LABEL: func.func @select_before_scale
// CHECK: poot.attention %arg0, %arg1, %arg2 mask(
// CHECK-SAME: scale = 2.500000e-01 : f64
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @select_before_scale(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keep: tensor<1x1x1x8xi1>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %s, %ninf : tensor<1x1x1x8xi1>, tensor<1x2x1x8xf32>, tensor<f32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %sm, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// p = select(p != p, 0, p): rows with no visible key give sum_t 0 * v[t], so
// the guard moves to the output.
// CHECK-LABEL: func.func @nan_guard
// CHECK: %[[O:.+]] = poot.attention %arg0, %arg1, %arg2 mask(
// CHECK: %[[Z:.+]] = poot.reduce_sum %{{.+}} {axis = 2 : i64, keepdim}
// CHECK: %[[NAN:.+]] = poot.compare ne, %[[O]], %[[O]]
// CHECK: %[[G:.+]] = poot.select %[[NAN]], %[[Z]], %[[O]]
// CHECK: return %[[G]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, NaN guard on the output{{$}}
func.func @nan_guard(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keep: tensor<1x1x1x8xi1>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %ss, %ninf : tensor<1x1x1x8xi1>, tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %isnan = poot.compare ne, %p, %p : tensor<1x2x1x8xf32>, tensor<1x2x1x8xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %pg = poot.select %isnan, %zero, %p : tensor<1x2x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %o = poot.matmul %pg, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

//===----------------------------------------------------------------------===//
// Declines: the softmax
//===----------------------------------------------------------------------===//

// -----

// p = select(p > 0.5, 0, p) is not a NaN guard.
// CHECK-LABEL: func.func @select_not_guard
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: a select on the probabilities that is not a NaN guard select(p != p, 0, p){{$}}
func.func @select_not_guard(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %half = poot.constant dense<5.0e-01> : tensor<f32>
  %big = poot.compare gt, %p, %half : tensor<1x2x1x8xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %pg = poot.select %big, %zero, %p : tensor<1x2x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %o = poot.matmul %pg, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// p = exp(s) * 0.5 is no normalisation.
// CHECK-LABEL: func.func @not_normalised
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the probabilities are not exp(s) / sum(exp(s)){{$}}
func.func @not_normalised(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %e = poot.exp %s : tensor<1x2x1x8xf32>
  %half = poot.constant dense<5.0e-01> : tensor<f32>
  %p = poot.mul %e, %half : tensor<1x2x1x8xf32>, tensor<f32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// exp(s) / max(exp(s)) divides by the wrong reduction.
// CHECK-LABEL: func.func @denominator_not_sum
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the denominator is not the sum of the numerator{{$}}
func.func @denominator_not_sum(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %e = poot.exp %s : tensor<1x2x1x8xf32>
  %z = poot.reduce_max %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// The sum without keepdim broadcasts [1, 1, 4] against the keys, not the
// rows: each column is divided by a row's sum.
// CHECK-LABEL: func.func @sum_drops_axis
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the softmax sum drops its axis: it does not broadcast per row{{$}}
func.func @sum_drops_axis(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x4x16xf32>, %v: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x1x4x16xf32>, tensor<1x1x16x4xf32>
  %e = poot.exp %s : tensor<1x1x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64} : tensor<1x1x4x4xf32>
  %p = poot.div %e, %z : tensor<1x1x4x4xf32>, tensor<1x1x4xf32>
  %o = poot.matmul %p, %v : tensor<1x1x4x4xf32>, tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// A softmax over the query axis.
// CHECK-LABEL: func.func @softmax_query_axis
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: softmax over axis 2, expected the key axis 3{{$}}
func.func @softmax_query_axis(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %e = poot.exp %s : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x1x4xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

// -----

// p = s / sum(s): a normalisation without exp.
// CHECK-LABEL: func.func @numerator_not_exp
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the numerator is not an exp{{$}}
func.func @numerator_not_exp(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %z = poot.reduce_sum %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %s, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// The max without keepdim: s - max broadcasts the maxima along the keys.
// CHECK-LABEL: func.func @max_drops_axis
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the softmax max drops its axis: it does not broadcast per row{{$}}
func.func @max_drops_axis(%q: tensor<1x1x4x16xf32>, %k: tensor<1x1x4x16xf32>, %v: tensor<1x1x4x16xf32>) -> tensor<1x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x1x4x16xf32>, tensor<1x1x16x4xf32>
  %m = poot.reduce_max %s {axis = 3 : i64} : tensor<1x1x4x4xf32>
  %d = poot.sub %s, %m : tensor<1x1x4x4xf32>, tensor<1x1x4xf32>
  %e = poot.exp %d : tensor<1x1x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x4x4xf32>
  %p = poot.div %e, %z : tensor<1x1x4x4xf32>, tensor<1x1x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x1x4x4xf32>, tensor<1x1x4x16xf32>
  return %o : tensor<1x1x4x16xf32>
}

// -----

// The max over the query axis: not a per-row constant.
// CHECK-LABEL: func.func @max_query_axis
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: softmax max over axis 2, expected the key axis 3{{$}}
func.func @max_query_axis(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>, %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %s, %m : tensor<1x2x4x4xf32>, tensor<1x2x1x4xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}

//===----------------------------------------------------------------------===//
// Declines: the score transform
//===----------------------------------------------------------------------===//

// -----

// A softmax over an input, not over q . k.
// CHECK-LABEL: func.func @scores_not_matmul
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the scores do not come from a matmul{{$}}
func.func @scores_not_matmul(%s: tensor<1x2x1x8xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// Two score matmuls added together.
// CHECK-LABEL: func.func @two_score_matmuls
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: an add whose sides both (or neither) come from the scores{{$}}
func.func @two_score_matmuls(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %k2: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s1 = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %kt2 = poot.transpose %k2 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s2 = poot.matmul %q, %kt2 : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %s = poot.add %s1, %s2 : tensor<1x2x1x8xf32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// (q . k + mask) * 0.25 scales an arbitrary mask with the scores: the sum
// distributed, the fused op adds mask * 0.25 (an op of its own on the mask)
// to the scaled scores.
// CHECK-LABEL: func.func @mask_added_before_scale
// CHECK-SAME: %[[MASK:[^:]+]]: tensor<1x1x1x8xf32>)
// CHECK: %[[C:.+]] = poot.constant dense<2.500000e-01> : tensor<f32>
// CHECK: %[[SM:.+]] = poot.mul %[[MASK]], %[[C]]
// CHECK: poot.attention %{{.+}}, %{{.+}}, %{{.+}} mask(%[[SM]] : tensor<1x1x1x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; a bias added before the scale, multiplied by it{{$}}
func.func @mask_added_before_scale(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<1x1x1x8xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %sm = poot.add %s, %mask : tensor<1x2x1x8xf32>, tensor<1x1x1x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %sm, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// ((q . k + b) * 2 + b) * 0.5: one bias value added inside two scales
// (factors 1 and 0.5 on the way out) is declined rather than read at one.
// CHECK-LABEL: func.func @bias_added_at_two_scales
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: 'poot.add' at line {{[0-9]+}} adds a bias that the chain also adds at another scale{{$}}
func.func @bias_added_at_two_scales(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x5x16xf32>, %v: tensor<1x2x5x16xf32>, %b: tensor<1x1x3x5xf32>) -> tensor<1x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x16xf32>, tensor<1x2x16x5xf32>
  %s1 = poot.add %s, %b : tensor<1x2x3x5xf32>, tensor<1x1x3x5xf32>
  %two = poot.constant dense<2.0> : tensor<f32>
  %s2 = poot.mul %s1, %two : tensor<1x2x3x5xf32>, tensor<f32>
  %s3 = poot.add %s2, %b : tensor<1x2x3x5xf32>, tensor<1x1x3x5xf32>
  %half = poot.constant dense<0.5> : tensor<f32>
  %s4 = poot.mul %s3, %half : tensor<1x2x3x5xf32>, tensor<f32>
  %m = poot.reduce_max %s4 {axis = 3 : i64, keepdim} : tensor<1x2x3x5xf32>
  %d = poot.sub %s4, %m : tensor<1x2x3x5xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x5xf32>
  %p = poot.div %e, %z : tensor<1x2x3x5xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x5xf32>, tensor<1x2x5x16xf32>
  return %o : tensor<1x2x3x16xf32>
}

// -----

// A -inf select before the softcap: 30 * tanh(-inf / 30) is -30, a finite
// score, not a hidden key.
// CHECK-LABEL: func.func @mask_selected_before_softcap
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: a mask is selected before the scale or softcap: the score order differs from (q.k)*scale -> softcap -> +mask{{$}}
func.func @mask_selected_before_softcap(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keep: tensor<1x1x1x8xi1>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %s, %ninf : tensor<1x1x1x8xi1>, tensor<1x2x1x8xf32>, tensor<f32>
  %cap = poot.constant dense<3.0e+01> : tensor<f32>
  %s1 = poot.div %sm, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x2x1x8xf32>
  %s3 = poot.mul %s2, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %s3 {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s3, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// masked_fill(~keep, -1e9): a finite fill gives hidden keys the score -1e9,
// and a row with every key hidden averages v instead of giving 0/0. Nothing
// proves that keep leaves each row a visible key.
// CHECK-LABEL: func.func @finite_fill
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: finite mask fill -1e+09 with rows that may have no visible key (too small to absorb the scores){{$}}
func.func @finite_fill(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keep: tensor<1x1x1x8xi1>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0e+09> : tensor<f32>
  %sm = poot.select %keep, %ss, %fill : tensor<1x1x1x8xi1>, tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// masked_fill(t > pos, -100) on the scores: exp(-100 - max) is about 4e-44,
// not 0, so the hidden keys keep a weight and the fill is no -inf.
// CHECK-LABEL: func.func @finite_fill_small
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: finite mask fill -100 is too small to hide keys: exp(score + fill) need not underflow{{$}}
func.func @finite_fill_small(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
    %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>}) -> tensor<1x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0e+02> : tensor<f32>
  %sm = poot.select %hid, %fill, %ss : tensor<1x1x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// masked_fill(t > pos, -10000) on the scores, with pos of no declared range:
// a negative pos would hide every key, where -10000 averages and -inf is 0/0.
// CHECK-LABEL: func.func @finite_fill_unranged_pos
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: finite mask fill -10000 with rows that may have no visible key{{$}}
func.func @finite_fill_unranged_pos(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
    %pos: tensor<i32>) -> tensor<1x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %fill = poot.constant dense<-1.0e+04> : tensor<f32>
  %sm = poot.select %hid, %fill, %ss : tensor<1x1x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// A window of 3 filled with finfo.min, at a pos declared up to 63 over 8
// keys: from pos = 10 on the window holds no key, so the fill is no -inf
// (the graph averages such a row). It absorbs every score, though, so it
// fuses as the additive mask select(hide, 0, finfo.min), which averages
// the same rows.
// CHECK-LABEL: func.func @finite_fill_window_past_keys
// CHECK: poot.attention %{{.+}} mask(%{{.+}} : tensor<1x1x1x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; mask kept as a tensor: finite mask fill -3.40282e+38 with rows that may have no visible key; the select fill -3.40282e+38 absorbs every score, so it is the additive mask of that fill{{$}}
func.func @finite_fill_window_past_keys(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
    %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 64>}) -> tensor<1x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %back = poot.sub %p4, %t : tensor<1x1x1x1xi32>, tensor<1x1x1x8xi32>
  %w = poot.constant dense<3> : tensor<i32>
  %old = poot.compare ge, %back, %w : tensor<1x1x1x8xi32>, tensor<i32>
  %hide = poot.or %hid, %old : tensor<1x1x1x8xi1>, tensor<1x1x1x8xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %fill = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %hide, %fill, %ss : tensor<1x1x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// An additive causal mask of -10000 beside a padding mask that may hide
// every key: the sum is kept as a tensor mask, which computes the same.
// CHECK-LABEL: func.func @finite_fill_with_padding
// CHECK: poot.attention %arg0, %arg1, %arg2 mask(
// CHECK-NOT: causal
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; mask kept as a tensor: finite mask fill -10000 with rows that may have no visible key{{$}}
func.func @finite_fill_with_padding(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
    %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>}, %pad: tensor<1x1x1x8xf32>) -> tensor<1x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %fill = poot.constant dense<-1.0e+04> : tensor<1x1x1x8xf32>
  %zero = poot.constant dense<0.0> : tensor<1x1x1x8xf32>
  %causal = poot.select %hid, %fill, %zero : tensor<1x1x1x8xi1>, tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>
  %mask = poot.add %causal, %pad : tensor<1x1x1x8xf32>, tensor<1x1x1x8xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x2x1x8xf32>, tensor<1x1x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// 30 * tanh(s / 50) is 30 * tanh((0.6 s) / 30): softcap 30 on the scores
// scaled by 0.6 (llama.cpp folds the scale into the tanh's factor).
// CHECK-LABEL: func.func @softcap_mismatched
// CHECK: poot.attention {{.*}}scale = 6.000000e-01 : f64, softcap = 3.000000e+01 : f64
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.6, softcap 30{{$}}
func.func @softcap_mismatched(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %in = poot.constant dense<5.0e+01> : tensor<f32>
  %s1 = poot.div %s, %in : tensor<1x2x1x8xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x2x1x8xf32>
  %out = poot.constant dense<3.0e+01> : tensor<f32>
  %s3 = poot.mul %s2, %out : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %s3 {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s3, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// 30 * tanh(s / -50): the inner factor is negative, no softcap of a
// positively scaled score.
// CHECK-LABEL: func.func @softcap_negative_inner
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: tanh softcap with outer factor 30 and inner factor -0.02: not c*tanh(a*s) for positive c, a{{$}}
func.func @softcap_negative_inner(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %in = poot.constant dense<-5.0e+01> : tensor<f32>
  %s1 = poot.div %s, %in : tensor<1x2x1x8xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x2x1x8xf32>
  %out = poot.constant dense<3.0e+01> : tensor<f32>
  %s3 = poot.mul %s2, %out : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %s3 {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s3, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// softcap(q . k) * 0.25: the scale after the cap.
// CHECK-LABEL: func.func @softcap_before_scale
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the softcap is applied before the scale: the score order differs from (q.k)*scale -> softcap{{$}}
func.func @softcap_before_scale(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %cap = poot.constant dense<3.0e+01> : tensor<f32>
  %s1 = poot.div %s, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %s2 = poot.tanh %s1 : tensor<1x2x1x8xf32>
  %s3 = poot.mul %s2, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %c = poot.constant dense<2.500000e-01> : tensor<f32>
  %ss = poot.mul %s3, %c : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// softcap(softcap(s)).
// CHECK-LABEL: func.func @two_softcaps
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: two softcaps on one score{{$}}
func.func @two_softcaps(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %cap = poot.constant dense<3.0e+01> : tensor<f32>
  %a1 = poot.div %s, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %a2 = poot.tanh %a1 : tensor<1x2x1x8xf32>
  %a3 = poot.mul %a2, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %b1 = poot.div %a3, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %b2 = poot.tanh %b1 : tensor<1x2x1x8xf32>
  %b3 = poot.mul %b2, %cap : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %b3 {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %b3, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// relu(q . k) before the softmax.
// CHECK-LABEL: func.func @foreign_op
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: 'poot.max' between the first matmul and the softmax{{$}}
func.func @foreign_op(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %r = poot.max %s, %zero : tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %r {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %r, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

//===----------------------------------------------------------------------===//
// Declines: operands
//===----------------------------------------------------------------------===//

// -----

// Unbatched [H, L, D] operands: the batched attention at B = 1.
// CHECK-LABEL: func.func @rank3
// CHECK: %[[Q:.+]] = poot.reshape %arg0 : tensor<2x1x16xf32> -> tensor<1x2x1x16xf32>
// CHECK: %[[K:.+]] = poot.reshape %arg1 : tensor<2x8x16xf32> -> tensor<1x2x8x16xf32>
// CHECK: %[[V:.+]] = poot.reshape %arg2 : tensor<2x8x16xf32> -> tensor<1x2x8x16xf32>
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<1x2x1x16xf32> -> tensor<2x1x16xf32>
// CHECK: return %[[R]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1{{$}}
func.func @rank3(%q: tensor<2x1x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<2x8x16xf32>) -> tensor<2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x1x16xf32>, tensor<2x16x8xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<2x1x8xf32>
  %d = poot.sub %s, %m : tensor<2x1x8xf32>, tensor<2x1x1xf32>
  %e = poot.exp %d : tensor<2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x1x8xf32>, tensor<2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x1x8xf32>, tensor<2x8x16xf32>
  return %o : tensor<2x1x16xf32>
}

// -----

// Unbatched q and k beside a batched value: no one frame holds them.
// CHECK-LABEL: func.func @rank3_batched_value
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: expected rank-4 [B, H, L, D], rank-3 [H, L, D] or grouped rank-5 [B, Hkv, n, L, D] operands, got ranks 3, 3 and 4{{$}}
func.func @rank3_batched_value(%q: tensor<2x1x16xf32>, %k: tensor<2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x1x16xf32>, tensor<2x16x8xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<2x1x8xf32>
  %d = poot.sub %s, %m : tensor<2x1x8xf32>, tensor<2x1x1xf32>
  %e = poot.exp %d : tensor<2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x1x8xf32>, tensor<2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// Grouped 5-D scores whose key holds its own head per group (not one head
// spread over the group axis): no n_rep maps query heads to key heads.
// CHECK-LABEL: func.func @grouped_key_not_spread
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: grouped keys or values are not one head per group spread over the group axis{{$}}
func.func @grouped_key_not_spread(%q: tensor<1x2x3x4x40xf32>, %k: tensor<1x2x3x6x40xf32>, %v: tensor<1x2x6x40xf32>) -> tensor<1x2x3x4x40xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x3x6x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x4x40xf32>, tensor<1x2x3x40x6xf32>
  %m = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4x6xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %vg = poot.reshape %v : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %o = poot.matmul %p, %vg : tensor<1x2x3x4x6xf32>, tensor<1x2x1x6x40xf32>
  return %o : tensor<1x2x3x4x40xf32>
}

// -----

// Grouped 5-D attention as JAX's einsum writes it (q [B, Hkv, n, Lq, D],
// one key/value head per group spread by the matmuls): the rank-4 op at
// n_rep = n on q reshaped to [B, Hkv * n, Lq, D], the result reshaped back.
// CHECK-LABEL: func.func @grouped_5d
// CHECK: %[[Q:.+]] = poot.reshape %arg0 : tensor<1x2x3x4x40xf32> -> tensor<1x6x4x40xf32>
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %arg1, %arg2 {n_rep = 3 : i64, scale = 1.000000e+00 : f64}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<1x6x4x40xf32> -> tensor<1x2x3x4x40xf32>
// CHECK: return %[[R]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 1{{$}}
func.func @grouped_5d(%q: tensor<1x2x3x4x40xf32>, %k: tensor<1x2x6x40xf32>, %v: tensor<1x2x6x40xf32>) -> tensor<1x2x3x4x40xf32> {
  %kg = poot.reshape %k : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %kt = poot.transpose %kg {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x6x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x4x40xf32>, tensor<1x2x1x40x6xf32>
  %m = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4x6xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %vg = poot.reshape %v : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %o = poot.matmul %p, %vg : tensor<1x2x3x4x6xf32>, tensor<1x2x1x6x40xf32>
  return %o : tensor<1x2x3x4x40xf32>
}

// -----

// Grouped 5-D form on [B, Hq, L, D] heads: q reshaped to [B, Hkv, n, Lq, D],
// k and v reshaped to [B, Hkv, 1, L, D] and broadcast over the n axis.
// CHECK-LABEL: func.func @grouped_5d_broadcast
// The reshapes in and out fold against the graph's own.
// CHECK: %[[O:.+]] = poot.attention %arg0, %arg1, %arg2 {n_rep = 3 : i64, scale = 1.000000e+00 : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 1{{$}}
func.func @grouped_5d_broadcast(%q: tensor<1x6x4x40xf32>, %k: tensor<1x2x6x40xf32>, %v: tensor<1x2x6x40xf32>) -> tensor<1x6x4x40xf32> {
  %qg = poot.reshape %q : tensor<1x6x4x40xf32> -> tensor<1x2x3x4x40xf32>
  %kg = poot.reshape %k : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %kb = poot.broadcast %kg {shape = array<i64: 1, 2, 3, 6, 40>} : tensor<1x2x1x6x40xf32>
  %kt = poot.transpose %kb {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x3x6x40xf32>
  %s = poot.matmul %qg, %kt : tensor<1x2x3x4x40xf32>, tensor<1x2x3x40x6xf32>
  %m = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4x6xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %vg = poot.reshape %v : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %vb = poot.broadcast %vg {shape = array<i64: 1, 2, 3, 6, 40>} : tensor<1x2x1x6x40xf32>
  %o = poot.matmul %p, %vb : tensor<1x2x3x4x6xf32>, tensor<1x2x3x6x40xf32>
  %r = poot.reshape %o : tensor<1x2x3x4x40xf32> -> tensor<1x6x4x40xf32>
  return %r : tensor<1x6x4x40xf32>
}

// -----

// A per-head mask on grouped scores: one mask per query head h = k * 3 +
// r, the grouping kept.
// CHECK-LABEL: func.func @grouped_5d_head_mask
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x6x4x6xf32>) {n_rep = 3 : i64, scale = 1.000000e+00 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 1, tensor mask{{$}}
func.func @grouped_5d_head_mask(%q: tensor<1x2x3x4x40xf32>, %k: tensor<1x2x6x40xf32>, %v: tensor<1x2x6x40xf32>, %bias: tensor<1x2x3x4x6xf32>) -> tensor<1x2x3x4x40xf32> {
  %kg = poot.reshape %k : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %kt = poot.transpose %kg {perm = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x1x6x40xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x2x3x4x40xf32>, tensor<1x2x1x40x6xf32>
  %s = poot.add %s0, %bias : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x6xf32>
  %m = poot.reduce_max %s {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %d = poot.sub %s, %m : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %e = poot.exp %d : tensor<1x2x3x4x6xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x4x6xf32>
  %p = poot.div %e, %z : tensor<1x2x3x4x6xf32>, tensor<1x2x3x4x1xf32>
  %vg = poot.reshape %v : tensor<1x2x6x40xf32> -> tensor<1x2x1x6x40xf32>
  %o = poot.matmul %p, %vg : tensor<1x2x3x4x6xf32>, tensor<1x2x1x6x40xf32>
  return %o : tensor<1x2x3x4x40xf32>
}

// -----

// One [Lk, D] value matrix broadcast by the matmul.
// CHECK-LABEL: func.func @value_rank2
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: expected a rank-4 value{{$}}
func.func @value_rank2(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// One key batch row broadcast against two query rows: the rows become
// query heads (head h of row n is head 2 h + n), n_rep 2.
// CHECK-LABEL: func.func @key_batch_broadcast
// CHECK: poot.attention %{{.+}}, %arg1, %arg2 {n_rep = 2 : i64, scale = 1.000000e+00 : f64} : tensor<1x4x1x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x1x16xf32>
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 1; keys and values of batch 1, the query batch 2 folded into the heads{{$}}
func.func @key_batch_broadcast(%q: tensor<2x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<2x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xf32>, tensor<1x2x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x2x1x8xf32>, tensor<2x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<2x2x1x16xf32>
}

// -----

// One query head broadcast against two key heads: every key head reads
// the same query, broadcast for the fused op.
// CHECK-LABEL: func.func @query_head_broadcast
// CHECK: poot.broadcast %{{.+}} {shape = array<i64: 1, 2, 1, 16>}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1; the one query head broadcast to the 2 key heads{{$}}
func.func @query_head_broadcast(%q: tensor<1x1x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x1x1x16xf32>, tensor<1x2x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %e = poot.exp %d : tensor<1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<1x2x1x8xf32>, tensor<1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x1x16xf32>
}

// -----

// A head gather from 3 key heads to 4 query heads: no grouping, so the
// attention reads the gathered keys and values (n_rep 1).
// CHECK-LABEL: func.func @heads_not_divisible
// CHECK: %[[KR:.+]] = poot.gather %arg1
// CHECK: %[[VR:.+]] = poot.gather %arg2
// CHECK: poot.attention %arg0, %[[KR]], %[[VR]] {n_rep = 1 : i64
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1; 3 key heads do not divide 4 query heads, so n_rep 1 over the repeated keys and values{{$}}
func.func @heads_not_divisible(%q: tensor<1x4x1x16xf32>, %k: tensor<1x3x8x16xf32>, %v: tensor<1x3x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %heads = poot.constant dense<[0, 0, 1, 2]> : tensor<4xi32>
  %kr = poot.gather %k[%heads] {axis = 1 : i64} : tensor<1x3x8x16xf32>, tensor<4xi32>
  %vr = poot.gather %v[%heads] {axis = 1 : i64} : tensor<1x3x8x16xf32>, tensor<4xi32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xf32>, tensor<1x4x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x1x8xf32>, tensor<1x4x8x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// k.repeat(1, 2, 1, 1) tiles the heads (h -> h % 2), not h -> h / 2: still
// a grouping, read with the query heads regrouped [0, 2, 1, 3] (query head
// h' = 2 kv + r reads key head h' / 2) and the output put back.
// CHECK-LABEL: func.func @head_map_tiled
// CHECK: %[[PERM:.+]] = poot.constant dense<[0, 2, 1, 3]> : tensor<4xi32>
// CHECK: %[[QP:.+]] = poot.gather %arg0[%[[PERM]]] {axis = 1 : i64}
// CHECK: %[[O:.+]] = poot.attention %[[QP]], %arg1, %arg2 {n_rep = 2 : i64
// CHECK: %[[R:.+]] = poot.gather %[[O]][%{{.+}}] {axis = 1 : i64}
// CHECK: return %[[R]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 1; query heads regrouped by key head{{$}}
func.func @head_map_tiled(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %heads = poot.constant dense<[0, 1, 0, 1]> : tensor<4xi32>
  %kr = poot.gather %k[%heads] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<4xi32>
  %vr = poot.gather %v[%heads] {axis = 1 : i64} : tensor<1x2x8x16xf32>, tensor<4xi32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xf32>, tensor<1x4x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x1x8xf32>, tensor<1x4x8x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// Keys repeated 2 ways from two heads, values broadcast from one head.
// CHECK-LABEL: func.func @repeats_differ
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: k and v repeat their heads differently (2 vs 4){{$}}
func.func @repeats_differ(%q: tensor<1x4x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x1x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %kr5 = poot.reshape %k : tensor<1x2x8x16xf32> -> tensor<1x2x1x8x16xf32>
  %krb = poot.broadcast %kr5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xf32>
  %kr = poot.reshape %krb : tensor<1x2x2x8x16xf32> -> tensor<1x4x8x16xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x16xf32>, tensor<1x4x16x8xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %s, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x1x8xf32>, tensor<1x1x8x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// A mask of rank 5 lifts the scores to rank 5.
// CHECK-LABEL: func.func @mask_rank5
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: mask of shape tensor<2x1x2x1x8xf32> does not broadcast to the scores tensor<1x2x1x8xf32>{{$}}
func.func @mask_rank5(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %mask: tensor<2x1x2x1x8xf32>) -> tensor<2x1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %sm = poot.add %s, %mask : tensor<1x2x1x8xf32>, tensor<2x1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 4 : i64, keepdim} : tensor<2x1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x1x2x1x8xf32>, tensor<2x1x2x1x1xf32>
  %e = poot.exp %d : tensor<2x1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<2x1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x1x2x1x8xf32>, tensor<2x1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<2x1x2x1x16xf32>
}

// -----

// A selected condition of rank 5 lifts the scores to rank 5.
// CHECK-LABEL: func.func @condition_rank5
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: mask of shape tensor<2x1x2x1x8xi1> does not broadcast to the scores tensor<1x2x1x8xf32>{{$}}
func.func @condition_rank5(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>, %keep: tensor<2x1x2x1x8xi1>) -> tensor<2x1x2x1x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %keep, %s, %ninf : tensor<2x1x2x1x8xi1>, tensor<1x2x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 4 : i64, keepdim} : tensor<2x1x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<2x1x2x1x8xf32>, tensor<2x1x2x1x1xf32>
  %e = poot.exp %d : tensor<2x1x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<2x1x2x1x8xf32>
  %p = poot.div %e, %z : tensor<2x1x2x1x8xf32>, tensor<2x1x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<2x1x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<2x1x2x1x16xf32>
}

// -----

// Three per-row positions for a batch of one: the mask widens the batch.
// CHECK-LABEL: func.func @positions_batch
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: positions do not match the batch{{$}}
func.func @positions_batch(%q: tensor<1x2x1x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
                           %pos: tensor<3xi32> {poot.slot = "pos", poot.range = array<i64: 0, 8>}) -> tensor<3x2x1x16xf32> {
  %p4 = poot.reshape %pos : tensor<3xi32> -> tensor<3x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %hid = poot.compare gt, %t, %p4 : tensor<1x1x1x8xi32>, tensor<3x1x1x1xi32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x1x16xf32>, tensor<1x2x16x8xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %hid, %ninf, %s : tensor<3x1x1x8xi1>, tensor<f32>, tensor<1x2x1x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<3x2x1x8xf32>
  %d = poot.sub %sm, %m : tensor<3x2x1x8xf32>, tensor<3x2x1x1xf32>
  %e = poot.exp %d : tensor<3x2x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<3x2x1x8xf32>
  %p = poot.div %e, %z : tensor<3x2x1x8xf32>, tensor<3x2x1x1xf32>
  %o = poot.matmul %p, %v : tensor<3x2x1x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<3x2x1x16xf32>
}

// -----

// A gated MLP: SiLU's exp is not summed, so the down projection is no
// candidate and says nothing (this case is last: no remark may follow the
// previous case's).
// CHECK-LABEL: func.func @silu_mlp_silent
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// EXPLAIN-NOT: remark
func.func @silu_mlp_silent(%x: tensor<4x16xf32>, %wg: tensor<16x32xf32>, %wu: tensor<16x32xf32>, %wd: tensor<32x16xf32>) -> tensor<4x16xf32> {
  %g = poot.matmul %x, %wg : tensor<4x16xf32>, tensor<16x32xf32>
  %u = poot.matmul %x, %wu : tensor<4x16xf32>, tensor<16x32xf32>
  %ng = poot.neg %g : tensor<4x32xf32>
  %e = poot.exp %ng : tensor<4x32xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %den = poot.add %e, %one : tensor<4x32xf32>, tensor<f32>
  %sig = poot.div %one, %den : tensor<f32>, tensor<4x32xf32>
  %silu = poot.mul %g, %sig : tensor<4x32xf32>, tensor<4x32xf32>
  %h = poot.mul %silu, %u : tensor<4x32xf32>, tensor<4x32xf32>
  %o = poot.matmul %h, %wd : tensor<4x32xf32>, tensor<32x16xf32>
  return %o : tensor<4x16xf32>
}
