// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// pytorch-labs/gpt-fast at 03e10bc, model.py: Transformer.forward and
// Attention.forward on one decode step, bf16, with
// F.scaled_dot_product_attention taken through torch's math path (the
// form torch.compile / export decompose it to). Transformer.forward: mask
// = self.causal_mask[None, None, input_pos], causal_mask =
// torch.tril(torch.ones(max_seq_length, max_seq_length, dtype=bool)) (the
// row of the current position gathered by input_pos); freqs_cis =
// self.freqs_cis[input_pos] (precomputed [block_size, D/2, 2] as
// stack(cos, sin).to(bf16)). Attention.forward: q, k, v =
// wqkv(x).split([dim, kv_size, kv_size], -1); views [B, S, H, D];
// apply_rotary_emb: x.float().reshape(.., -1, 2), freqs_cis.view(1, S, 1,
// D/2, 2), stack([x0 f0 - x1 f1, x1 f0 + x0 f1], -1).flatten(3)
// .type_as(x); transpose(1, 2); KVCache.update: k_out[:, :, input_pos] =
// k_val (index_put on the sequence axis, written here through a
// transpose to the scatter's leading axis); k.repeat_interleave(n_head //
// n_local_heads, dim=1), v too; SDPA math: the bool mask to
// where(~mask, -inf, 0), q and k^T each times sqrt(1/sqrt(D)), + mask,
// _safe_softmax, @ v; transpose(1, 2).view(B, S, dim). B = 1, S = 1,
// dim 64 = 4 heads of 16, 2 local (key/value) heads, max_seq_length 8,
// input_pos in [0, 8).
//
// Strongest form: two interleaved rotaries on the new q and k, then one
// fused op over the updated caches: pos(input_pos), causal, n_rep 2 (the
// cache read once per key head), scale 1/4, no tensor mask.

// CHECK-LABEL: func.func @gpt_fast_decode_index_put_kv_cache_tril_row_by_input_pos_repeat_interleave_sdpa_math_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<{{(1x)?}}i64>) {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal from pos
func.func @gpt_fast_decode_index_put_kv_cache_tril_row_by_input_pos_repeat_interleave_sdpa_math_bf16(
    %x: tensor<1x1x64xbf16>, %wqkv_t: tensor<64x128xbf16>, %freqs_cis_all: tensor<8x8x2xbf16>,
    %k_cache: tensor<1x2x8x16xbf16>, %v_cache: tensor<1x2x8x16xbf16>,
    %input_pos: tensor<1xi64> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<1x1x64xbf16> {
  // mask = self.causal_mask[None, None, input_pos]
  %r = poot.iota {dim = 0 : i64} : tensor<8x8xi64>
  %c = poot.iota {dim = 1 : i64} : tensor<8x8xi64>
  %tril = poot.compare le, %c, %r : tensor<8x8xi64>, tensor<8x8xi64>
  %rows = poot.gather %tril[%input_pos] {axis = 0 : i64} : tensor<8x8xi1>, tensor<1xi64>
  %mask = poot.reshape %rows : tensor<1x8xi1> -> tensor<1x1x1x8xi1>
  // freqs_cis = self.freqs_cis[input_pos]
  %fc = poot.gather %freqs_cis_all[%input_pos] {axis = 0 : i64} : tensor<8x8x2xbf16>, tensor<1xi64>
  // q, k, v = self.wqkv(x).split([self.dim, kv_size, kv_size], dim=-1)
  %qkv = poot.matmul %x, %wqkv_t : tensor<1x1x64xbf16>, tensor<64x128xbf16>
  %qs = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 1, 64>, step = array<i64: 1, 1, 1>} : tensor<1x1x128xbf16>
  %ks = poot.slice %qkv {start = array<i64: 0, 0, 64>, limit = array<i64: 1, 1, 96>, step = array<i64: 1, 1, 1>} : tensor<1x1x128xbf16>
  %vs = poot.slice %qkv {start = array<i64: 0, 0, 96>, limit = array<i64: 1, 1, 128>, step = array<i64: 1, 1, 1>} : tensor<1x1x128xbf16>
  %q4 = poot.reshape %qs : tensor<1x1x64xbf16> -> tensor<1x1x4x16xbf16>
  %k4 = poot.reshape %ks : tensor<1x1x32xbf16> -> tensor<1x1x2x16xbf16>
  %v4 = poot.reshape %vs : tensor<1x1x32xbf16> -> tensor<1x1x2x16xbf16>
  // apply_rotary_emb: freqs_cis.view(1, S, 1, D/2, 2) in f32 (x.float() promotes)
  %f5 = poot.reshape %fc : tensor<1x8x2xbf16> -> tensor<1x1x1x8x2xbf16>
  %f5f = poot.convert %f5 : tensor<1x1x1x8x2xbf16> -> tensor<1x1x1x8x2xf32>
  %f0s = poot.slice %f5f {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 1, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x1x8x2xf32>
  %f1s = poot.slice %f5f {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 1, 1, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x1x8x2xf32>
  %f0 = poot.reshape %f0s : tensor<1x1x1x8x1xf32> -> tensor<1x1x1x8xf32>
  %f1 = poot.reshape %f1s : tensor<1x1x1x8x1xf32> -> tensor<1x1x1x8xf32>
  // on q
  %qf = poot.convert %q4 : tensor<1x1x4x16xbf16> -> tensor<1x1x4x16xf32>
  %qp = poot.reshape %qf : tensor<1x1x4x16xf32> -> tensor<1x1x4x8x2xf32>
  %qx0s = poot.slice %qp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x4x8x2xf32>
  %qx1s = poot.slice %qp {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 1, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x4x8x2xf32>
  %qx0 = poot.reshape %qx0s : tensor<1x1x4x8x1xf32> -> tensor<1x1x4x8xf32>
  %qx1 = poot.reshape %qx1s : tensor<1x1x4x8x1xf32> -> tensor<1x1x4x8xf32>
  %qa = poot.mul %qx0, %f0 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qb = poot.mul %qx1, %f1 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qo0 = poot.sub %qa, %qb : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  %qc = poot.mul %qx1, %f0 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qd = poot.mul %qx0, %f1 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qo1 = poot.add %qc, %qd : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  %qo05 = poot.reshape %qo0 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8x1xf32>
  %qo15 = poot.reshape %qo1 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8x1xf32>
  %qst = poot.concat %qo05, %qo15 {axis = 4 : i64} : tensor<1x1x4x8x1xf32>, tensor<1x1x4x8x1xf32>
  %qfl = poot.reshape %qst : tensor<1x1x4x8x2xf32> -> tensor<1x1x4x16xf32>
  %qr = poot.convert %qfl : tensor<1x1x4x16xf32> -> tensor<1x1x4x16xbf16>
  // on k
  %kf = poot.convert %k4 : tensor<1x1x2x16xbf16> -> tensor<1x1x2x16xf32>
  %kp = poot.reshape %kf : tensor<1x1x2x16xf32> -> tensor<1x1x2x8x2xf32>
  %kx0s = poot.slice %kp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x2x8x2xf32>
  %kx1s = poot.slice %kp {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 1, 2, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x2x8x2xf32>
  %kx0 = poot.reshape %kx0s : tensor<1x1x2x8x1xf32> -> tensor<1x1x2x8xf32>
  %kx1 = poot.reshape %kx1s : tensor<1x1x2x8x1xf32> -> tensor<1x1x2x8xf32>
  %ka = poot.mul %kx0, %f0 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %kb = poot.mul %kx1, %f1 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %ko0 = poot.sub %ka, %kb : tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>
  %kc = poot.mul %kx1, %f0 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %kd = poot.mul %kx0, %f1 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %ko1 = poot.add %kc, %kd : tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>
  %ko05 = poot.reshape %ko0 : tensor<1x1x2x8xf32> -> tensor<1x1x2x8x1xf32>
  %ko15 = poot.reshape %ko1 : tensor<1x1x2x8xf32> -> tensor<1x1x2x8x1xf32>
  %kst = poot.concat %ko05, %ko15 {axis = 4 : i64} : tensor<1x1x2x8x1xf32>, tensor<1x1x2x8x1xf32>
  %kfl = poot.reshape %kst : tensor<1x1x2x8x2xf32> -> tensor<1x1x2x16xf32>
  %kr = poot.convert %kfl : tensor<1x1x2x16xf32> -> tensor<1x1x2x16xbf16>
  // q, k, v = map(lambda x: x.transpose(1, 2), (q, k, v))
  %q = poot.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x4x16xbf16>
  %kn = poot.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x16xbf16>
  %vn = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x16xbf16>
  // KVCache.update: k_out[:, :, input_pos] = k_val
  %kc0 = poot.transpose %k_cache {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x8x16xbf16>
  %knt = poot.transpose %kn {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x1x16xbf16>
  %kc1 = poot.scatter_update %kc0[%input_pos], %knt : tensor<8x1x2x16xbf16>, tensor<1xi64>, tensor<1x1x2x16xbf16>
  %kout = poot.transpose %kc1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x2x16xbf16>
  %vc0 = poot.transpose %v_cache {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x8x16xbf16>
  %vnt = poot.transpose %vn {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x1x16xbf16>
  %vc1 = poot.scatter_update %vc0[%input_pos], %vnt : tensor<8x1x2x16xbf16>, tensor<1xi64>, tensor<1x1x2x16xbf16>
  %vout = poot.transpose %vc1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x2x16xbf16>
  // k.repeat_interleave(self.n_head // self.n_local_heads, dim=1)
  %k5 = poot.reshape %kout : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %kx = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %k = poot.reshape %kx : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  %v5 = poot.reshape %vout : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %vx = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %v = poot.reshape %vx : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  // SDPA math: bool mask -> where(~mask, -inf, 0); sqrt(scale) on q and k^T
  %nm = poot.not %mask : tensor<1x1x1x8xi1>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %ninf = poot.constant dense<0xFF80> : tensor<bf16>
  %am = poot.select %nm, %ninf, %zero : tensor<1x1x1x8xi1>, tensor<bf16>, tensor<bf16>
  %sc = poot.constant dense<0.5> : tensor<bf16>
  %qsc = poot.mul %q, %sc : tensor<1x4x1x16xbf16>, tensor<bf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xbf16>
  %kts = poot.mul %kt, %sc : tensor<1x4x16x8xbf16>, tensor<bf16>
  %s = poot.matmul %qsc, %kts : tensor<1x4x1x16xbf16>, tensor<1x4x16x8xbf16>
  %sm = poot.add %s, %am : tensor<1x4x1x8xbf16>, tensor<1x1x1x8xbf16>
  // _safe_softmax
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x1x8xbf16>
  %d = poot.sub %sm, %mx : tensor<1x4x1x8xbf16>, tensor<1x4x1x1xbf16>
  %e = poot.exp %d : tensor<1x4x1x8xbf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xbf16>
  %p = poot.div %e, %z : tensor<1x4x1x8xbf16>, tensor<1x4x1x1xbf16>
  %isninf = poot.compare eq, %sm, %ninf : tensor<1x4x1x8xbf16>, tensor<bf16>
  %mf = poot.convert %isninf : tensor<1x4x1x8xi1> -> tensor<1x4x1x8xbf16>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x1x8xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %dead = poot.compare eq, %all, %one : tensor<1x4x1x1xbf16>, tensor<bf16>
  %ps = poot.select %dead, %zero, %p : tensor<1x4x1x1xi1>, tensor<bf16>, tensor<1x4x1x8xbf16>
  %y = poot.matmul %ps, %v : tensor<1x4x1x8xbf16>, tensor<1x4x8x16xbf16>
  // y.transpose(1, 2).contiguous().view(bsz, seqlen, self.dim)
  %yt = poot.transpose %y {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x1x16xbf16>
  %out = poot.reshape %yt : tensor<1x1x4x16xbf16> -> tensor<1x1x64xbf16>
  return %out : tensor<1x1x64xbf16>
}
