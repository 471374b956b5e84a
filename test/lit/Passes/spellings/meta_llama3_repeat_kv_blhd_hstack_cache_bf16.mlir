// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// meta-llama/llama3 (llama/model.py, Attention.forward and
// Transformer.forward) on a 3-token chunk at start_pos = 5, bf16:
// apply_rotary_emb views xq.float() as complex pairs [.., D/2, 2] and
// multiplies by freqs_cis (cos + i sin, [L, D/2] viewed [1, L, 1, D/2]),
// view_as_real + flatten(3), type_as(xq); the cache is written in the
// [bs, slen, n_kv, d] layout at [start_pos, start_pos + seqlen) and read
// back as cache_k[:bsz, :start_pos + seqlen]; repeat_kv is
// x[:, :, :, None, :].expand(bs, slen, n_kv, n_rep, d).reshape(.., n_kv *
// n_rep, d), still in that layout, before the transpose(1, 2); scores =
// q @ k^T / sqrt(D) + mask with mask = hstack([zeros(seqlen, start_pos),
// triu(full(-inf), 1)]).type_as(h); softmax(scores.float()).type_as(xq);
// @ values; transpose(1, 2). GQA 4/2, D = 16, cache 12, start_pos 5.

// CHECK-LABEL: func.func @meta_llama3_repeat_kv_blhd_hstack_cache_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal at offset 5{{$}}
func.func @meta_llama3_repeat_kv_blhd_hstack_cache_bf16(
    %xq: tensor<1x3x4x16xbf16>, %xk: tensor<1x3x2x16xbf16>, %xv: tensor<1x3x2x16xbf16>,
    %fcos: tensor<3x8xf32>, %fsin: tensor<3x8xf32>,
    %cache_k: tensor<1x12x2x16xbf16>, %cache_v: tensor<1x12x2x16xbf16>) -> tensor<1x3x4x16xbf16> {
  // apply_rotary_emb: complex multiply by (cos + i sin)
  %c5 = poot.reshape %fcos : tensor<3x8xf32> -> tensor<1x3x1x8x1xf32>
  %s5 = poot.reshape %fsin : tensor<3x8xf32> -> tensor<1x3x1x8x1xf32>
  %qf = poot.convert %xq : tensor<1x3x4x16xbf16> -> tensor<1x3x4x16xf32>
  %q5 = poot.reshape %qf : tensor<1x3x4x16xf32> -> tensor<1x3x4x8x2xf32>
  %qre = poot.slice %q5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 3, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x3x4x8x2xf32>
  %qim = poot.slice %q5 {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 3, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x3x4x8x2xf32>
  %qa = poot.mul %qre, %c5 : tensor<1x3x4x8x1xf32>, tensor<1x3x1x8x1xf32>
  %qb = poot.mul %qim, %s5 : tensor<1x3x4x8x1xf32>, tensor<1x3x1x8x1xf32>
  %qore = poot.sub %qa, %qb : tensor<1x3x4x8x1xf32>, tensor<1x3x4x8x1xf32>
  %qc = poot.mul %qre, %s5 : tensor<1x3x4x8x1xf32>, tensor<1x3x1x8x1xf32>
  %qd = poot.mul %qim, %c5 : tensor<1x3x4x8x1xf32>, tensor<1x3x1x8x1xf32>
  %qoim = poot.add %qc, %qd : tensor<1x3x4x8x1xf32>, tensor<1x3x4x8x1xf32>
  %qo5 = poot.concat %qore, %qoim {axis = 4 : i64} : tensor<1x3x4x8x1xf32>, tensor<1x3x4x8x1xf32>
  %qo = poot.reshape %qo5 : tensor<1x3x4x8x2xf32> -> tensor<1x3x4x16xf32>
  %qr = poot.convert %qo : tensor<1x3x4x16xf32> -> tensor<1x3x4x16xbf16>
  %kf = poot.convert %xk : tensor<1x3x2x16xbf16> -> tensor<1x3x2x16xf32>
  %k5 = poot.reshape %kf : tensor<1x3x2x16xf32> -> tensor<1x3x2x8x2xf32>
  %kre = poot.slice %k5 {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 3, 2, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x3x2x8x2xf32>
  %kim = poot.slice %k5 {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 3, 2, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x3x2x8x2xf32>
  %ka = poot.mul %kre, %c5 : tensor<1x3x2x8x1xf32>, tensor<1x3x1x8x1xf32>
  %kb = poot.mul %kim, %s5 : tensor<1x3x2x8x1xf32>, tensor<1x3x1x8x1xf32>
  %kore = poot.sub %ka, %kb : tensor<1x3x2x8x1xf32>, tensor<1x3x2x8x1xf32>
  %kc = poot.mul %kre, %s5 : tensor<1x3x2x8x1xf32>, tensor<1x3x1x8x1xf32>
  %kd = poot.mul %kim, %c5 : tensor<1x3x2x8x1xf32>, tensor<1x3x1x8x1xf32>
  %koim = poot.add %kc, %kd : tensor<1x3x2x8x1xf32>, tensor<1x3x2x8x1xf32>
  %ko5 = poot.concat %kore, %koim {axis = 4 : i64} : tensor<1x3x2x8x1xf32>, tensor<1x3x2x8x1xf32>
  %ko = poot.reshape %ko5 : tensor<1x3x2x8x2xf32> -> tensor<1x3x2x16xf32>
  %kr = poot.convert %ko : tensor<1x3x2x16xf32> -> tensor<1x3x2x16xbf16>
  // cache_k[:bsz, start_pos : start_pos + seqlen] = xk; keys = cache_k[:bsz, : start_pos + seqlen]
  %z = poot.constant dense<0> : tensor<i32>
  %sp = poot.constant dense<5> : tensor<i32>
  %ck = poot.dynamic_update_slice %cache_k[%z, %sp, %z, %z], %kr : tensor<1x12x2x16xbf16>, tensor<1x3x2x16xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %cv = poot.dynamic_update_slice %cache_v[%z, %sp, %z, %z], %xv : tensor<1x12x2x16xbf16>, tensor<1x3x2x16xbf16>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %keys = poot.slice %ck {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x2x16xbf16>
  %vals = poot.slice %cv {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 8, 2, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x2x16xbf16>
  // repeat_kv in the [bs, slen, n_kv, d] layout
  %kx = poot.reshape %keys : tensor<1x8x2x16xbf16> -> tensor<1x8x2x1x16xbf16>
  %kxb = poot.broadcast %kx {shape = array<i64: 1, 8, 2, 2, 16>} : tensor<1x8x2x1x16xbf16>
  %krep = poot.reshape %kxb : tensor<1x8x2x2x16xbf16> -> tensor<1x8x4x16xbf16>
  %vx = poot.reshape %vals : tensor<1x8x2x16xbf16> -> tensor<1x8x2x1x16xbf16>
  %vxb = poot.broadcast %vx {shape = array<i64: 1, 8, 2, 2, 16>} : tensor<1x8x2x1x16xbf16>
  %vrep = poot.reshape %vxb : tensor<1x8x2x2x16xbf16> -> tensor<1x8x4x16xbf16>
  %q = poot.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xbf16>
  %kh = poot.transpose %krep {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xbf16>
  %vh = poot.transpose %vrep {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xbf16>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xbf16>
  %s0 = poot.matmul %q, %kt : tensor<1x4x3x16xbf16>, tensor<1x4x16x8xbf16>
  %sq = poot.constant dense<4.0> : tensor<bf16>
  %s = poot.div %s0, %sq : tensor<1x4x3x8xbf16>, tensor<bf16>
  // mask = hstack([zeros(seqlen, start_pos), triu(full(-inf), 1)]).type_as(h)
  %ri = poot.iota {dim = 0 : i64} : tensor<3x3xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<3x3xi32>
  %dij = poot.sub %ci, %ri : tensor<3x3xi32>, tensor<3x3xi32>
  %one = poot.constant dense<1> : tensor<i32>
  %up = poot.compare ge, %dij, %one : tensor<3x3xi32>, tensor<i32>
  %ninf = poot.constant dense<0xFF800000> : tensor<3x3xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %tri = poot.select %up, %ninf, %zf : tensor<3x3xi1>, tensor<3x3xf32>, tensor<f32>
  %zeros = poot.constant dense<0.0> : tensor<3x5xf32>
  %hst = poot.concat %zeros, %tri {axis = 1 : i64} : tensor<3x5xf32>, tensor<3x3xf32>
  %mask = poot.convert %hst : tensor<3x8xf32> -> tensor<3x8xbf16>
  %sm = poot.add %s, %mask : tensor<1x4x3x8xbf16>, tensor<3x8xbf16>
  %x = poot.convert %sm : tensor<1x4x3x8xbf16> -> tensor<1x4x3x8xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %d = poot.sub %x, %mx : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x8xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %p = poot.div %e, %zs : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  %pb = poot.convert %p : tensor<1x4x3x8xf32> -> tensor<1x4x3x8xbf16>
  %o = poot.matmul %pb, %vh : tensor<1x4x3x8xbf16>, tensor<1x4x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x16xbf16>
  return %ot : tensor<1x3x4x16xbf16>
}
