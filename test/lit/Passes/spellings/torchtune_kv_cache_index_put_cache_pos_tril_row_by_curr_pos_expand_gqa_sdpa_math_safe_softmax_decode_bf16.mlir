// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// pytorch/torchtune 0.6.1: one decode step of recipes/dev/generate_v2.py
// (causal_mask = torch.tril(torch.ones(T, T, dtype=torch.bool)), input_pos
// = torch.arange(T); per step batch["input_pos"] = input_pos[None, seq_len]
// and batch["mask"] = causal_mask[None, seq_len, None, :], the row of the
// current position, here with that position a run-time tensor) through
// torchtune/modules/attention.py MultiHeadAttention.forward with a
// kv_cache, bf16. q = q_proj(x).view(b, s, n_kv * q_per_kv, h_d);
// RotaryPositionalEmbeddings(q, input_pos): rope_cache =
// self.cache[input_pos] (the f32 stack([cos, sin], -1) buffer, [max_seq_len,
// h_d / 2, 2]) viewed (-1, s, 1, h_d / 2, 2), x.float().reshape(.., -1, 2),
// stack([x0 c - x1 s, x1 c + x0 s], -1).flatten(3).type_as(x); transpose(1,
// 2); k, v = k_proj(y), v_proj(y) viewed (b, s_y, -1, h_d), k rotated the
// same way, transpose(1, 2); kv_cache.update(k, v) (modules/kv_cache.py):
// k_out[:, :, self.cache_pos[:seq_len]] = k_val, v likewise (index_put on
// the sequence axis of the fixed [b, n_kv, max_seq_len, h_d] caches, at
// the cache's own cache_pos buffer, written here through a transpose to
// the scatter's leading axis; the buffer's add_(seq_len) feeds nothing
// read here); the GQA expand k.unsqueeze(2).expand(b, n_kv, q_per_kv, -1,
// h_d).flatten(1, 2), v alike; attention_utils._sdpa_or_flex_attention:
// mask[:, None, :, :], nn.functional.scaled_dot_product_attention(q, k, v,
// attn_mask=mask, is_causal=False) in torch's math form (torch >= 2.5):
// the bool mask made where(~mask, -inf, 0) in the query dtype (bf16), q, k,
// v upcast to f32, q and k^T each times sqrt(1 / sqrt(h_d)), matmul,
// add_(mask), _safe_softmax, @ v, .to(bf16); output.transpose(1, 2)
// .contiguous().view(b, s_x, -1) (output_proj left outside). b = 1, s = 1,
// n_h = 4, n_kv = 2, h_d = 16, max_seq_len = T = 8, curr_pos in [0, 8);
// cache_pos (the KVCache buffer, only cache_pos[0] is read) in [0, 8).
//
// Strongest form: two interleaved rotaries (q and the new k), then one fused
// op over the updated caches: poot.attention q, k_cache', v_cache'
// pos(curr_pos) {causal, n_rep = 2, scale = 0.25}; the mask row t <= pos
// always keeps key 0, so _safe_softmax never fires (no zero_empty_rows).
// The write slot cache_pos[0] is another input: nothing ties it to pos,
// and the fused op needs nothing tied (it reads the whole updated cache).

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @torchtune_kv_cache_index_put_cache_pos_tril_row_by_curr_pos_expand_gqa_sdpa_math_safe_softmax_decode_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<{{(1x)?}}i64>) {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal from pos; empty-row guard never fires{{$}}
func.func @torchtune_kv_cache_index_put_cache_pos_tril_row_by_curr_pos_expand_gqa_sdpa_math_safe_softmax_decode_bf16(
    %xq: tensor<1x1x64xbf16>, %xk: tensor<1x1x32xbf16>, %xv: tensor<1x1x32xbf16>,
    %rope: tensor<8x8x2xf32>,
    %k_cache: tensor<1x2x8x16xbf16>, %v_cache: tensor<1x2x8x16xbf16>,
    %cache_pos: tensor<8xi64> {poot.name = "cache_pos", poot.range = array<i64: 0, 8>},
    %curr_pos: tensor<1xi64> {poot.name = "curr_pos", poot.range = array<i64: 0, 8>})
    -> tensor<1x1x64xbf16> {
  // generate_v2: causal_mask = torch.tril(torch.ones(T, T, dtype=torch.bool)); input_pos = torch.arange(T)
  %r = poot.iota {dim = 0 : i64} : tensor<8x8xi64>
  %c = poot.iota {dim = 1 : i64} : tensor<8x8xi64>
  %causal_mask = poot.compare le, %c, %r : tensor<8x8xi64>, tensor<8x8xi64>
  %input_pos_all = poot.iota {dim = 0 : i64} : tensor<8xi64>
  // batch["mask"] = causal_mask[None, seq_len, None, :]; batch["input_pos"] = input_pos[None, seq_len]
  %mrow = poot.gather %causal_mask[%curr_pos] {axis = 0 : i64} : tensor<8x8xi1>, tensor<1xi64>
  %mask3 = poot.reshape %mrow : tensor<1x8xi1> -> tensor<1x1x8xi1>
  %input_pos = poot.gather %input_pos_all[%curr_pos] {axis = 0 : i64} : tensor<8xi64>, tensor<1xi64>
  // q = q.view(b, s_x, self.num_kv_heads * q_per_kv, self.head_dim)
  %q4 = poot.reshape %xq : tensor<1x1x64xbf16> -> tensor<1x1x4x16xbf16>
  // k, v = k.view(b, s_y, -1, self.head_dim), v likewise
  %k4 = poot.reshape %xk : tensor<1x1x32xbf16> -> tensor<1x1x2x16xbf16>
  %v4 = poot.reshape %xv : tensor<1x1x32xbf16> -> tensor<1x1x2x16xbf16>
  // rope_cache = self.cache[input_pos].view(-1, xshaped.size(1), 1, xshaped.size(3), 2)
  %rc0 = poot.gather %rope[%input_pos] {axis = 0 : i64} : tensor<8x8x2xf32>, tensor<1xi64>
  %rc = poot.reshape %rc0 : tensor<1x8x2xf32> -> tensor<1x1x1x8x2xf32>
  %c5 = poot.slice %rc {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 1, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x1x8x2xf32>
  %s5 = poot.slice %rc {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 1, 1, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x1x8x2xf32>
  %rc_0 = poot.reshape %c5 : tensor<1x1x1x8x1xf32> -> tensor<1x1x1x8xf32>
  %rc_1 = poot.reshape %s5 : tensor<1x1x1x8x1xf32> -> tensor<1x1x1x8xf32>
  // q = self.pos_embeddings(q, input_pos=input_pos)
  %qf = poot.convert %q4 : tensor<1x1x4x16xbf16> -> tensor<1x1x4x16xf32>
  %qsh = poot.reshape %qf : tensor<1x1x4x16xf32> -> tensor<1x1x4x8x2xf32>
  %q05 = poot.slice %qsh {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x4x8x2xf32>
  %q15 = poot.slice %qsh {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 1, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x4x8x2xf32>
  %q0 = poot.reshape %q05 : tensor<1x1x4x8x1xf32> -> tensor<1x1x4x8xf32>
  %q1 = poot.reshape %q15 : tensor<1x1x4x8x1xf32> -> tensor<1x1x4x8xf32>
  %qa = poot.mul %q0, %rc_0 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qb = poot.mul %q1, %rc_1 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qo0 = poot.sub %qa, %qb : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  %qc = poot.mul %q1, %rc_0 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qd = poot.mul %q0, %rc_1 : tensor<1x1x4x8xf32>, tensor<1x1x1x8xf32>
  %qo1 = poot.add %qc, %qd : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>
  %qo05 = poot.reshape %qo0 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8x1xf32>
  %qo15 = poot.reshape %qo1 : tensor<1x1x4x8xf32> -> tensor<1x1x4x8x1xf32>
  %qst = poot.concat %qo05, %qo15 {axis = 4 : i64} : tensor<1x1x4x8x1xf32>, tensor<1x1x4x8x1xf32>
  %qfl = poot.reshape %qst : tensor<1x1x4x8x2xf32> -> tensor<1x1x4x16xf32>
  %qro = poot.convert %qfl : tensor<1x1x4x16xf32> -> tensor<1x1x4x16xbf16>
  // k = self.pos_embeddings(k, input_pos=input_pos)
  %kf = poot.convert %k4 : tensor<1x1x2x16xbf16> -> tensor<1x1x2x16xf32>
  %ksh = poot.reshape %kf : tensor<1x1x2x16xf32> -> tensor<1x1x2x8x2xf32>
  %k05 = poot.slice %ksh {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 1, 2, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x2x8x2xf32>
  %k15 = poot.slice %ksh {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 1, 2, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x1x2x8x2xf32>
  %k0 = poot.reshape %k05 : tensor<1x1x2x8x1xf32> -> tensor<1x1x2x8xf32>
  %k1 = poot.reshape %k15 : tensor<1x1x2x8x1xf32> -> tensor<1x1x2x8xf32>
  %ka = poot.mul %k0, %rc_0 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %kb = poot.mul %k1, %rc_1 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %ko0 = poot.sub %ka, %kb : tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>
  %kc = poot.mul %k1, %rc_0 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %kd = poot.mul %k0, %rc_1 : tensor<1x1x2x8xf32>, tensor<1x1x1x8xf32>
  %ko1 = poot.add %kc, %kd : tensor<1x1x2x8xf32>, tensor<1x1x2x8xf32>
  %ko05 = poot.reshape %ko0 : tensor<1x1x2x8xf32> -> tensor<1x1x2x8x1xf32>
  %ko15 = poot.reshape %ko1 : tensor<1x1x2x8xf32> -> tensor<1x1x2x8x1xf32>
  %kst = poot.concat %ko05, %ko15 {axis = 4 : i64} : tensor<1x1x2x8x1xf32>, tensor<1x1x2x8x1xf32>
  %kfl = poot.reshape %kst : tensor<1x1x2x8x2xf32> -> tensor<1x1x2x16xf32>
  %kro = poot.convert %kfl : tensor<1x1x2x16xf32> -> tensor<1x1x2x16xbf16>
  // q = q.transpose(1, 2); k = k.transpose(1, 2); v = v.transpose(1, 2)
  %q = poot.transpose %qro {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x4x16xbf16>
  %kn = poot.transpose %kro {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x16xbf16>
  %vn = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x16xbf16>
  // kv_cache.update: k_out[:, :, self.cache_pos[:seq_len]] = k_val; v_out likewise
  %idx = poot.slice %cache_pos {start = array<i64: 0>, limit = array<i64: 1>, step = array<i64: 1>} : tensor<8xi64>
  %kc0 = poot.transpose %k_cache {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x8x16xbf16>
  %knt = poot.transpose %kn {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x1x16xbf16>
  %kc1 = poot.scatter_update %kc0[%idx], %knt : tensor<8x1x2x16xbf16>, tensor<1xi64>, tensor<1x1x2x16xbf16>
  %k_out = poot.transpose %kc1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x2x16xbf16>
  %vc0 = poot.transpose %v_cache {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x8x16xbf16>
  %vnt = poot.transpose %vn {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x1x16xbf16>
  %vc1 = poot.scatter_update %vc0[%idx], %vnt : tensor<8x1x2x16xbf16>, tensor<1xi64>, tensor<1x1x2x16xbf16>
  %v_out = poot.transpose %vc1 {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x2x16xbf16>
  // k = k.unsqueeze(2).expand(b, n_kv, q_per_kv, -1, h_d).flatten(1, 2); v likewise
  %ku = poot.reshape %k_out : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %kx = poot.broadcast %ku {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %k = poot.reshape %kx : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  %vu = poot.reshape %v_out : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %vx = poot.broadcast %vu {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %v = poot.reshape %vx : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  // _attention_call: mask = mask[:, None, :, :]
  %mask = poot.reshape %mask3 : tensor<1x1x8xi1> -> tensor<1x1x1x8xi1>
  // scaled_dot_product_attention: convert_boolean_attn_mask(attn_mask, query.dtype)
  %nm = poot.not %mask : tensor<1x1x1x8xi1>
  %ninf16 = poot.constant dense<0xFF80> : tensor<bf16>
  %zero16 = poot.constant dense<0.0> : tensor<bf16>
  %am = poot.select %nm, %ninf16, %zero16 : tensor<1x1x1x8xi1>, tensor<bf16>, tensor<bf16>
  // _scaled_dot_product_attention_math: query_acc = query_.to(at::kFloat), key_acc, value_acc likewise
  %qa32 = poot.convert %q : tensor<1x4x1x16xbf16> -> tensor<1x4x1x16xf32>
  %ka32 = poot.convert %k : tensor<1x4x8x16xbf16> -> tensor<1x4x8x16xf32>
  %va32 = poot.convert %v : tensor<1x4x8x16xbf16> -> tensor<1x4x8x16xf32>
  // scaling_factor = sqrt(1 / sqrt(16)); query = query_acc * scaling_factor
  %sf = poot.constant dense<0.5> : tensor<f32>
  %qs = poot.mul %qa32, %sf : tensor<1x4x1x16xf32>, tensor<f32>
  // attn = at::matmul(query, key_acc.transpose(-2, -1) * scaling_factor)
  %kt = poot.transpose %ka32 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xf32>
  %kts = poot.mul %kt, %sf : tensor<1x4x16x8xf32>, tensor<f32>
  %attn = poot.matmul %qs, %kts : tensor<1x4x1x16xf32>, tensor<1x4x16x8xf32>
  // attn.add_(*attn_mask) (the bf16 mask into the f32 scores)
  %amf = poot.convert %am : tensor<1x1x1x8xbf16> -> tensor<1x1x1x8xf32>
  %x = poot.add %attn, %amf : tensor<1x4x1x8xf32>, tensor<1x1x1x8xf32>
  // at::_safe_softmax(attn, -1)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %x, %mx : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x4x1x8xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x4x1x8xi1> -> tensor<1x4x1x8xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x4x1x1xf32>, tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x4x1x1xi1>, tensor<f32>, tensor<1x4x1x8xf32>
  // at::matmul(attn, value_acc).to(origin_dtype)
  %o = poot.matmul %ps, %va32 : tensor<1x4x1x8xf32>, tensor<1x4x8x16xf32>
  %ob = poot.convert %o : tensor<1x4x1x16xf32> -> tensor<1x4x1x16xbf16>
  // output.transpose(1, 2).contiguous().view(b, s_x, -1)
  %ot = poot.transpose %ob {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x1x16xbf16>
  %out = poot.reshape %ot : tensor<1x1x4x16xbf16> -> tensor<1x1x64xbf16>
  return %out : tensor<1x1x64xbf16>
}
