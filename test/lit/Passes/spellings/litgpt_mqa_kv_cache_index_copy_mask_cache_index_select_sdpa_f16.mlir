// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Lightning-AI litgpt (litgpt/model.py as of late 2024), a multi-query
// model (n_query_groups = 1) generating with the KV cache, f16: GPT.forward
// takes cos = batched_index_select(self.cos, 0, input_pos) (and sin), and
// mask = batched_index_select(self.mask_cache, 2, input_pos), the rows
// input_pos of build_mask_cache's bool tril(ones(N, N)).unsqueeze(0)
// .unsqueeze(0). CausalSelfAttention.forward: the fused qkv viewed
// (B, T, 1, q_per_kv + 2, hs), permuted (0, 2, 3, 1, 4) and split
// ((q_per_kv, 1, 1), dim=2); with input_pos given and one query group k
// and v are not expanded (the matmul broadcasts the single key head);
// reshape(B, -1, T, hs); apply_rope (rotate-half, cos/sin (T, hs)
// unsqueezed at -3); KVCache.forward: batched_index_copy_(self.k[:n], -2,
// input_pos, k), i.e. k_cache.index_copy_(2, input_pos, k), and v alike;
// F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=1/sqrt(hs))
// in torch's math form (torch >= 2.5): q, k, v upcast to f32, q and k^T
// each times sqrt(scale), the bool mask made where(!mask, -inf, 0),
// matmul, + mask, _safe_softmax (where(all(x == -inf, -1), 0, softmax)),
// @ v, .to(f16); y.transpose(1, 2). The mask row at input_pos[0] is the
// band t <= input_pos[0], causal at that position, and keeps key 0, so the
// guard never fires. A decode step (generate passes input_pos =
// input_pos[-1:] + 1, one position): B = 1, T = 1, cache N = 8,
// n_head = 4, hs = 16.

// CHECK-LABEL: func.func @litgpt_mqa_kv_cache_index_copy_mask_cache_index_select_sdpa_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}}) {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal from pos; empty-row guard never fires{{$}}
func.func @litgpt_mqa_kv_cache_index_copy_mask_cache_index_select_sdpa_f16(
    %qkv: tensor<1x1x96xf16>, %cos_buf: tensor<8x16xf16>, %sin_buf: tensor<8x16xf16>,
    %k_cache: tensor<1x1x8x16xf16>, %v_cache: tensor<1x1x8x16xf16>,
    %input_pos: tensor<1xi64> {poot.range = array<i64: 0, 8>}) -> tensor<1x1x64xf16> {
  // GPT.forward: cos, sin and mask rows at input_pos
  %cos0 = poot.gather %cos_buf[%input_pos] {axis = 0 : i64} : tensor<8x16xf16>, tensor<1xi64>
  %sin0 = poot.gather %sin_buf[%input_pos] {axis = 0 : i64} : tensor<8x16xf16>, tensor<1xi64>
  %mask_cache = poot.constant dense<[[[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]]]> : tensor<1x1x8x8xi1>
  %mask = poot.gather %mask_cache[%input_pos] {axis = 2 : i64} : tensor<1x1x8x8xi1>, tensor<1xi64>
  // qkv.view(B, T, 1, 6, hs).permute(0, 2, 3, 1, 4).split((4, 1, 1), dim=2)
  %g5 = poot.reshape %qkv : tensor<1x1x96xf16> -> tensor<1x1x1x6x16xf16>
  %gp = poot.transpose %g5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x1x1x6x16xf16>
  %q5 = poot.slice %gp {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 1, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x6x1x16xf16>
  %k5 = poot.slice %gp {start = array<i64: 0, 0, 4, 0, 0>, limit = array<i64: 1, 1, 5, 1, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x6x1x16xf16>
  %v5 = poot.slice %gp {start = array<i64: 0, 0, 5, 0, 0>, limit = array<i64: 1, 1, 6, 1, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x6x1x16xf16>
  %q = poot.reshape %q5 : tensor<1x1x4x1x16xf16> -> tensor<1x4x1x16xf16>
  %k = poot.reshape %k5 : tensor<1x1x1x1x16xf16> -> tensor<1x1x1x16xf16>
  %v = poot.reshape %v5 : tensor<1x1x1x1x16xf16> -> tensor<1x1x1x16xf16>
  // apply_rope
  %cos = poot.reshape %cos0 : tensor<1x16xf16> -> tensor<1x1x16xf16>
  %sin = poot.reshape %sin0 : tensor<1x16xf16> -> tensor<1x1x16xf16>
  %qx1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 1, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x1x16xf16>
  %qx2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 1, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x1x16xf16>
  %qn2 = poot.neg %qx2 : tensor<1x4x1x8xf16>
  %qrot = poot.concat %qn2, %qx1 {axis = 3 : i64} : tensor<1x4x1x8xf16>, tensor<1x4x1x8xf16>
  %qa = poot.mul %q, %cos : tensor<1x4x1x16xf16>, tensor<1x1x16xf16>
  %qb = poot.mul %qrot, %sin : tensor<1x4x1x16xf16>, tensor<1x1x16xf16>
  %qr = poot.add %qa, %qb : tensor<1x4x1x16xf16>, tensor<1x4x1x16xf16>
  %kx1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 1, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x1x16xf16>
  %kx2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 1, 1, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x1x16xf16>
  %kn2 = poot.neg %kx2 : tensor<1x1x1x8xf16>
  %krot = poot.concat %kn2, %kx1 {axis = 3 : i64} : tensor<1x1x1x8xf16>, tensor<1x1x1x8xf16>
  %ka = poot.mul %k, %cos : tensor<1x1x1x16xf16>, tensor<1x1x16xf16>
  %kb = poot.mul %krot, %sin : tensor<1x1x1x16xf16>, tensor<1x1x16xf16>
  %kr = poot.add %ka, %kb : tensor<1x1x1x16xf16>, tensor<1x1x1x16xf16>
  // KVCache.forward: index_copy_(2, input_pos, k)
  %kct = poot.transpose %k_cache {perm = array<i64: 2, 0, 1, 3>} : tensor<1x1x8x16xf16>
  %knt = poot.transpose %kr {perm = array<i64: 2, 0, 1, 3>} : tensor<1x1x1x16xf16>
  %kc1 = poot.scatter_update %kct[%input_pos], %knt : tensor<8x1x1x16xf16>, tensor<1xi64>, tensor<1x1x1x16xf16>
  %keys = poot.transpose %kc1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x1x16xf16>
  %vct = poot.transpose %v_cache {perm = array<i64: 2, 0, 1, 3>} : tensor<1x1x8x16xf16>
  %vnt = poot.transpose %v {perm = array<i64: 2, 0, 1, 3>} : tensor<1x1x1x16xf16>
  %vc1 = poot.scatter_update %vct[%input_pos], %vnt : tensor<8x1x1x16xf16>, tensor<1xi64>, tensor<1x1x1x16xf16>
  %values = poot.transpose %vc1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x1x16xf16>
  // scaled_dot_product_attention, math form
  %qf = poot.convert %qr : tensor<1x4x1x16xf16> -> tensor<1x4x1x16xf32>
  %kf = poot.convert %keys : tensor<1x1x8x16xf16> -> tensor<1x1x8x16xf32>
  %vf = poot.convert %values : tensor<1x1x8x16xf16> -> tensor<1x1x8x16xf32>
  %sf = poot.constant dense<0.5> : tensor<f32>
  %qs = poot.mul %qf, %sf : tensor<1x4x1x16xf32>, tensor<f32>
  %nm = poot.not %mask : tensor<1x1x1x8xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %am = poot.select %nm, %ninf, %zero : tensor<1x1x1x8xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %kf {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x8x16xf32>
  %kts = poot.mul %kt, %sf : tensor<1x1x16x8xf32>, tensor<f32>
  %s = poot.matmul %qs, %kts : tensor<1x4x1x16xf32>, tensor<1x1x16x8xf32>
  %x = poot.add %s, %am : tensor<1x4x1x8xf32>, tensor<1x1x1x8xf32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %x, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x4x1x8xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x4x1x8xi1> -> tensor<1x4x1x8xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x4x1x1xf32>, tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x4x1x1xi1>, tensor<f32>, tensor<1x4x1x8xf32>
  %o = poot.matmul %ps, %vf : tensor<1x4x1x8xf32>, tensor<1x1x8x16xf32>
  %oh = poot.convert %o : tensor<1x4x1x16xf32> -> tensor<1x4x1x16xf16>
  %y = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x1x16xf16>
  %out = poot.reshape %y : tensor<1x1x4x16xf16> -> tensor<1x1x64xf16>
  return %out : tensor<1x1x64xf16>
}
