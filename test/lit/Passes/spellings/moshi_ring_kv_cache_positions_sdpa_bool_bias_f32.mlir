// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// kyutai-labs/moshi moshi/moshi/modules/transformer.py: one streaming step
// of StreamingMultiheadAttention.forward (causal, context = 8, q and k
// after RoPE) with RingKVCache.complete (capacity = context,
// respect_exec_mask = False): the T new keys and values are index_copy_'d
// into the ring at (arange(T) + end_offset) % capacity; the key positions
// are rebuilt per slot: last_offset = end_offset + T - 1, delta = arange(
// capacity) - last_offset % capacity, positions = where(delta <= 0,
// last_offset + delta, last_offset + delta - capacity), -1 where the slot
// index >= the advanced end_offset (never written); then pos_q = offset +
// arange(T), delta = pos_q - pos_k, attn_bias = (pos_k >= 0) & (delta >= 0)
// & (delta < context), and F.scaled_dot_product_attention(q, k, v,
// attn_bias) in its math form (the bool mask made where(!m, -inf, 0), q
// and k^T each scaled by sqrt(scale), _safe_softmax). The streaming
// offset and the cache's end_offset hold the same count (both start at 0
// and advance by T), so the graph takes it once. The ring is no band over
// the slot axis: a tensor mask. Each query row sees the key it has just
// written (slot (offset + t) % capacity holds position offset + t), so the
// _safe_softmax guard never fires. % is aten.remainder on non-negative
// ints, x - (x / c) * c. MHA, B = 1, H = 4, T = 2, capacity 8, D = 16.

// Strongest form: poot.attention q, k, v mask(...) {n_rep = 1, scale =
// 0.25}. The proof that the guard never fires does not read the ring's
// positions, so the guard is kept as zero_empty_rows (it tests the scores
// the softmax normalises); on rows that keep a key, as all of these do,
// that is the same op.
// CHECK-LABEL: func.func @moshi_ring_kv_cache_positions_sdpa_bool_bias_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.*}} mask(%{{.+}} : tensor<1x1x2x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them
func.func @moshi_ring_kv_cache_positions_sdpa_bool_bias_f32(
    %q: tensor<1x4x2x16xf32>, %k: tensor<1x4x2x16xf32>, %v: tensor<1x4x2x16xf32>,
    %cache_k: tensor<1x4x8x16xf32>, %cache_v: tensor<1x4x8x16xf32>,
    %offset: tensor<1xi64> {poot.range = array<i64: 0, 30>}) -> tensor<1x2x64xf32> {
  %cap = poot.constant dense<8> : tensor<i64>
  // RingKVCache.complete: indexes = (arange(T) + end_offset.view(-1, 1)) % capacity
  %ar_t = poot.iota {dim = 1 : i64} : tensor<1x2xi64>
  %eo = poot.reshape %offset : tensor<1xi64> -> tensor<1x1xi64>
  %wi0 = poot.add %ar_t, %eo : tensor<1x2xi64>, tensor<1x1xi64>
  %wq = poot.div %wi0, %cap : tensor<1x2xi64>, tensor<i64>
  %wm = poot.mul %wq, %cap : tensor<1x2xi64>, tensor<i64>
  %wi = poot.sub %wi0, %wm : tensor<1x2xi64>, tensor<1x2xi64>
  %widx = poot.reshape %wi : tensor<1x2xi64> -> tensor<2xi64>
  // cache[0].index_copy_(2, indexes[0], k), cache[1] likewise
  %ckt = poot.transpose %cache_k {perm = array<i64: 2, 0, 1, 3>} : tensor<1x4x8x16xf32>
  %knt = poot.transpose %k {perm = array<i64: 2, 0, 1, 3>} : tensor<1x4x2x16xf32>
  %ck1 = poot.scatter_update %ckt[%widx], %knt : tensor<8x1x4x16xf32>, tensor<2xi64>, tensor<2x1x4x16xf32>
  %keys = poot.transpose %ck1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x4x16xf32>
  %cvt = poot.transpose %cache_v {perm = array<i64: 2, 0, 1, 3>} : tensor<1x4x8x16xf32>
  %vnt = poot.transpose %v {perm = array<i64: 2, 0, 1, 3>} : tensor<1x4x2x16xf32>
  %cv1 = poot.scatter_update %cvt[%widx], %vnt : tensor<8x1x4x16xf32>, tensor<2xi64>, tensor<2x1x4x16xf32>
  %values = poot.transpose %cv1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x4x16xf32>
  // positions of the slots
  %idx = poot.iota {dim = 1 : i64} : tensor<1x8xi64>
  %t1 = poot.constant dense<1> : tensor<i64>
  %last = poot.add %eo, %t1 : tensor<1x1xi64>, tensor<i64>
  %lq = poot.div %last, %cap : tensor<1x1xi64>, tensor<i64>
  %lm = poot.mul %lq, %cap : tensor<1x1xi64>, tensor<i64>
  %end_index = poot.sub %last, %lm : tensor<1x1xi64>, tensor<1x1xi64>
  %delta = poot.sub %idx, %end_index : tensor<1x8xi64>, tensor<1x1xi64>
  %z = poot.constant dense<0> : tensor<i64>
  %le0 = poot.compare le, %delta, %z : tensor<1x8xi64>, tensor<i64>
  %pa = poot.add %last, %delta : tensor<1x1xi64>, tensor<1x8xi64>
  %pb = poot.sub %pa, %cap : tensor<1x8xi64>, tensor<i64>
  %positions0 = poot.select %le0, %pa, %pb : tensor<1x8xi1>, tensor<1x8xi64>, tensor<1x8xi64>
  // end_offset.add_(T); invalid = indexes >= end_offset.view(-1, 1)
  %tT = poot.constant dense<2> : tensor<i64>
  %eo2 = poot.add %eo, %tT : tensor<1x1xi64>, tensor<i64>
  %invalid = poot.compare ge, %idx, %eo2 : tensor<1x8xi64>, tensor<1x1xi64>
  %m1 = poot.constant dense<-1> : tensor<i64>
  %positions = poot.select %invalid, %m1, %positions0 : tensor<1x8xi1>, tensor<i64>, tensor<1x8xi64>
  // forward: pos_k = pos_k[:, None]; pos_q = offset.view(-1, 1, 1) + arange(T).view(-1, 1)
  %pos_k = poot.reshape %positions : tensor<1x8xi64> -> tensor<1x1x8xi64>
  %o3 = poot.reshape %offset : tensor<1xi64> -> tensor<1x1x1xi64>
  %ar2 = poot.iota {dim = 0 : i64} : tensor<2x1xi64>
  %pos_q = poot.add %o3, %ar2 : tensor<1x1x1xi64>, tensor<2x1xi64>
  %dqk = poot.sub %pos_q, %pos_k : tensor<1x2x1xi64>, tensor<1x1x8xi64>
  %kvalid = poot.compare ge, %pos_k, %z : tensor<1x1x8xi64>, tensor<i64>
  %past = poot.compare ge, %dqk, %z : tensor<1x2x8xi64>, tensor<i64>
  %b0 = poot.and %kvalid, %past : tensor<1x1x8xi1>, tensor<1x2x8xi1>
  %ctx = poot.constant dense<8> : tensor<i64>
  %inctx = poot.compare lt, %dqk, %ctx : tensor<1x2x8xi64>, tensor<i64>
  %b1 = poot.and %b0, %inctx : tensor<1x2x8xi1>, tensor<1x2x8xi1>
  %attn_bias = poot.reshape %b1 : tensor<1x2x8xi1> -> tensor<1x1x2x8xi1>
  // scaled_dot_product_attention, math form
  %nb = poot.not %attn_bias : tensor<1x1x2x8xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %fmask = poot.select %nb, %ninf, %zf : tensor<1x1x2x8xi1>, tensor<f32>, tensor<f32>
  %sf = poot.constant dense<0.5> : tensor<f32>
  %qs = poot.mul %q, %sf : tensor<1x4x2x16xf32>, tensor<f32>
  %kt = poot.transpose %keys {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf32>
  %kts = poot.mul %kt, %sf : tensor<1x4x16x8xf32>, tensor<f32>
  %s0 = poot.matmul %qs, %kts : tensor<1x4x2x16xf32>, tensor<1x4x16x8xf32>
  %s = poot.add %s0, %fmask : tensor<1x4x2x8xf32>, tensor<1x1x2x8xf32>
  %mx = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<1x4x2x8xf32>
  %d = poot.sub %s, %mx : tensor<1x4x2x8xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x8xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x8xf32>
  %p = poot.div %e, %zs : tensor<1x4x2x8xf32>, tensor<1x4x2x1xf32>
  %masked = poot.compare eq, %s, %ninf : tensor<1x4x2x8xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x4x2x8xi1> -> tensor<1x4x2x8xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x2x8xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %onef : tensor<1x4x2x1xf32>, tensor<f32>
  %ps = poot.select %rows, %zf, %p : tensor<1x4x2x1xi1>, tensor<f32>, tensor<1x4x2x8xf32>
  %x0 = poot.matmul %ps, %values : tensor<1x4x2x8xf32>, tensor<1x4x8x16xf32>
  // rearrange "b h t d -> b t (h d)"
  %x1 = poot.transpose %x0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x16xf32>
  %x = poot.reshape %x1 : tensor<1x2x4x16xf32> -> tensor<1x2x64xf32>
  return %x : tensor<1x2x64xf32>
}
