// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// SGLang (sgl-project/sglang at 011a615,
// python/sglang/srt/layers/attention/torch_native_backend.py,
// TorchNativeAttnBackend.forward_extend -> _run_sdpa_forward_extend), one
// request of an extend (prefill-with-prefix) batch, f16, with
// scaled_dot_product_attention on torch's math path. query [tokens,
// heads, D].movedim(0, 1); per_req_query = query[:, start_q:end_q];
// per_req_query_redudant = torch.empty((heads, seq_len_kv, D)) and
// per_req_query_redudant[:, prefill_seq_len_q:, :] = per_req_query (the
// extend queries placed at the end of a full-length query block so that
// SDPA's top-left is_causal lines up; the front rows are uninitialised,
// zero here, and their outputs are dropped); per_req_tokens =
// index_select(req_to_token, 0, req_pool_idx).squeeze(0)[:seq_len_kv];
// per_req_key = k_cache[per_req_tokens].movedim(0, 1) (k_cache is the
// token pool [slots, kv_heads, D]), value likewise; SDPA(q.unsqueeze(0),
// k.unsqueeze(0), v.unsqueeze(0), enable_gqa=True, scale=layer.scaling,
// is_causal=True): ones(L, S).tril() to where(.., 0, -inf), k and v
// repeat_interleave(Hq / Hkv, -3), q and k^T times sqrt(scale),
// _safe_softmax, @ v; .squeeze(0).movedim(1, 0); output[start_q:end_q] =
// out[prefill_seq_len_q:]. Prefix 4, extend 3 (seq_len_kv 7), Hq = 4,
// Hkv = 2, D = 16 (scaling 1/4), a pool of 16 slots, req_to_token [2, 8].
//
// Strongest form: only the 3 extend rows computed, causal at offset 4
// (query row i at position 4 + i), the keys read straight from the pools
// through the gathered token map (paged, read [1, 7], proven inside the
// pool), n_rep 2, scale 1/4, no tensor mask.

// Not the strongest form yet; the strongest, from the source, was:
//   poot.attention q, k, v read(... : tensor<1x7xi64>) pos(...) {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
//   over the 3 extend rows only, the pools read in the kernel
// Today (sound, checked against the oracle):
// fused over all 7 rows of the front-padded query block against the
// gathered keys and values (dense, causal): correct, with the 4 padded
// rows computed and dropped, and the gather not read as a paged pool.
// CHECK-LABEL: func.func @sglang_torch_native_extend_redundant_query_front_pad_req_to_token_gather_sdpa_math_gqa_causal_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64} : tensor<1x4x7x16xf16>, tensor<1x2x7x16xf16>, tensor<1x2x7x16xf16> -> tensor<1x4x7x16xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal
func.func @sglang_torch_native_extend_redundant_query_front_pad_req_to_token_gather_sdpa_math_gqa_causal_f16(
    %query: tensor<3x4x16xf16>, %k_cache: tensor<16x2x16xf16>, %v_cache: tensor<16x2x16xf16>,
    %req_to_token: tensor<2x8xi64> {poot.range = array<i64: 0, 16>},
    %req_pool_idx: tensor<1xi64> {poot.range = array<i64: 0, 2>}) -> tensor<3x4x16xf16> {
  // query = query.movedim(0, query.dim() - 2); per_req_query = query[:, 0:3, :]
  %qm = poot.transpose %query {perm = array<i64: 1, 0, 2>} : tensor<3x4x16xf16>
  // per_req_query_redudant = torch.empty(...); [:, prefill_seq_len_q:, :] = per_req_query
  %empty = poot.constant dense<0.0> : tensor<4x7x16xf16>
  %c0 = poot.constant dense<0> : tensor<i64>
  %c4 = poot.constant dense<4> : tensor<i64>
  %qred = poot.dynamic_update_slice %empty[%c0, %c4, %c0], %qm : tensor<4x7x16xf16>, tensor<4x3x16xf16>, tensor<i64>, tensor<i64>, tensor<i64>
  // curr_req_to_tokens = torch.index_select(req_to_token, 0, req_pool_idx).squeeze(0)
  %rt = poot.gather %req_to_token[%req_pool_idx] {axis = 0 : i64} : tensor<2x8xi64>, tensor<1xi64>
  %rt1 = poot.reshape %rt : tensor<1x8xi64> -> tensor<8xi64>
  // per_req_tokens = curr_req_to_tokens[:seq_len_kv]
  %tok = poot.slice %rt1 {start = array<i64: 0>, limit = array<i64: 7>, step = array<i64: 1>} : tensor<8xi64>
  // per_req_key = k_cache[per_req_tokens].movedim(0, query.dim() - 2)
  %kg = poot.gather %k_cache[%tok] {axis = 0 : i64} : tensor<16x2x16xf16>, tensor<7xi64>
  %k3 = poot.transpose %kg {perm = array<i64: 1, 0, 2>} : tensor<7x2x16xf16>
  %vg = poot.gather %v_cache[%tok] {axis = 0 : i64} : tensor<16x2x16xf16>, tensor<7xi64>
  %v3 = poot.transpose %vg {perm = array<i64: 1, 0, 2>} : tensor<7x2x16xf16>
  // .unsqueeze(0)
  %q = poot.reshape %qred : tensor<4x7x16xf16> -> tensor<1x4x7x16xf16>
  %k = poot.reshape %k3 : tensor<2x7x16xf16> -> tensor<1x2x7x16xf16>
  %v = poot.reshape %v3 : tensor<2x7x16xf16> -> tensor<1x2x7x16xf16>
  // SDPA math, is_causal: ones(L, S).tril() -> where(mask, 0, -inf)
  %r = poot.iota {dim = 0 : i64} : tensor<7x7xi64>
  %c = poot.iota {dim = 1 : i64} : tensor<7x7xi64>
  %tril = poot.compare le, %c, %r : tensor<7x7xi64>, tensor<7x7xi64>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %ninf = poot.constant dense<0xFC00> : tensor<f16>
  %am = poot.select %tril, %zero, %ninf : tensor<7x7xi1>, tensor<f16>, tensor<f16>
  // enable_gqa: key.repeat_interleave(Hq / Hkv, -3), value too
  %heads = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %hk = poot.div %heads, %two : tensor<4xi64>, tensor<i64>
  %kr = poot.gather %k[%hk] {axis = 1 : i64} : tensor<1x2x7x16xf16>, tensor<4xi64>
  %vr = poot.gather %v[%hk] {axis = 1 : i64} : tensor<1x2x7x16xf16>, tensor<4xi64>
  // q * sqrt(scale), k^T * sqrt(scale)
  %sc = poot.constant dense<0.5> : tensor<f16>
  %qs = poot.mul %q, %sc : tensor<1x4x7x16xf16>, tensor<f16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x16xf16>
  %kts = poot.mul %kt, %sc : tensor<1x4x16x7xf16>, tensor<f16>
  %s = poot.matmul %qs, %kts : tensor<1x4x7x16xf16>, tensor<1x4x16x7xf16>
  %x = poot.add %s, %am : tensor<1x4x7x7xf16>, tensor<7x7xf16>
  // _safe_softmax
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x7x7xf16>
  %d = poot.sub %x, %mx : tensor<1x4x7x7xf16>, tensor<1x4x7x1xf16>
  %e = poot.exp %d : tensor<1x4x7x7xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x7x7xf16>
  %p = poot.div %e, %z : tensor<1x4x7x7xf16>, tensor<1x4x7x1xf16>
  %isninf = poot.compare eq, %x, %ninf : tensor<1x4x7x7xf16>, tensor<f16>
  %mf = poot.convert %isninf : tensor<1x4x7x7xi1> -> tensor<1x4x7x7xf16>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x7x7xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %dead = poot.compare eq, %all, %one : tensor<1x4x7x1xf16>, tensor<f16>
  %ps = poot.select %dead, %zero, %p : tensor<1x4x7x1xi1>, tensor<f16>, tensor<1x4x7x7xf16>
  %o = poot.matmul %ps, %vr : tensor<1x4x7x7xf16>, tensor<1x4x7x16xf16>
  // .squeeze(0).movedim(query.dim() - 2, 0); output[start_q:end_q] = out[prefill_seq_len_q:]
  %o3 = poot.reshape %o : tensor<1x4x7x16xf16> -> tensor<4x7x16xf16>
  %om = poot.transpose %o3 {perm = array<i64: 1, 0, 2>} : tensor<4x7x16xf16>
  %out = poot.slice %om {start = array<i64: 4, 0, 0>, limit = array<i64: 7, 4, 16>, step = array<i64: 1, 1, 1>} : tensor<7x4x16xf16>
  return %out : tensor<3x4x16xf16>
}
