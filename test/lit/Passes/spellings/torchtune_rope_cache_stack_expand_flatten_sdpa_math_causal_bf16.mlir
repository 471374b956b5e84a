// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// PyTorch torchtune (torchtune/modules/attention.py, MultiHeadAttention
// .forward, with position_embeddings.py RotaryPositionalEmbeddings and
// attention_utils._sdpa_or_flex_attention) for a Llama-3 layer in training /
// prefill, bf16, no kv_cache and mask None (so is_causal=True): q viewed
// [b, s, n_kv * q_per_kv, h_d] and k, v [b, s, n_kv, h_d]; the rotary runs
// before the transpose, in that layout: rope_cache = self.cache[:seq_len]
// (the f32 buffer stack([cos, sin], -1), [max_seq_len, h_d / 2, 2]) viewed
// [-1, s, 1, h_d / 2, 2]; xshaped = x.float().reshape(.., -1, 2);
// stack([x0 * c - x1 * s, x1 * c + x0 * s], -1).flatten(3).type_as(x);
// transpose(1, 2); the GQA expand k.unsqueeze(2).expand(b, n_kv, q_per_kv,
// -1, h_d).flatten(1, 2), v alike; nn.functional.scaled_dot_product_attention
// (q, k, v, attn_mask=None, is_causal=True) in torch's math form
// (torch >= 2.5): q, k, v upcast to f32, q and k^T each times
// sqrt(1 / sqrt(h_d)), the causal ones(L, S).tril() made where(!m, -inf, 0),
// matmul, + mask, _safe_softmax, @ v, .to(bf16); output.transpose(1, 2)
// .view(b, s, -1). b = 1, s = 6, n_h = 4, n_kv = 2, h_d = 16, cache 8.

// CHECK-LABEL: func.func @torchtune_rope_cache_stack_expand_flatten_sdpa_math_causal_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal; empty-row guard never fires{{$}}
func.func @torchtune_rope_cache_stack_expand_flatten_sdpa_math_causal_bf16(
    %xq: tensor<1x6x64xbf16>, %xk: tensor<1x6x32xbf16>, %xv: tensor<1x6x32xbf16>,
    %cache: tensor<8x8x2xf32>) -> tensor<1x6x64xbf16> {
  %q4 = poot.reshape %xq : tensor<1x6x64xbf16> -> tensor<1x6x4x16xbf16>
  %k4 = poot.reshape %xk : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  %v4 = poot.reshape %xv : tensor<1x6x32xbf16> -> tensor<1x6x2x16xbf16>
  // rope_cache = self.cache[:seq_len].view(-1, s, 1, h_d // 2, 2)
  %rc0 = poot.slice %cache {start = array<i64: 0, 0, 0>, limit = array<i64: 6, 8, 2>, step = array<i64: 1, 1, 1>} : tensor<8x8x2xf32>
  %rc = poot.reshape %rc0 : tensor<6x8x2xf32> -> tensor<1x6x1x8x2xf32>
  %c5 = poot.slice %rc {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 6, 1, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x6x1x8x2xf32>
  %s5 = poot.slice %rc {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 6, 1, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x6x1x8x2xf32>
  %c = poot.reshape %c5 : tensor<1x6x1x8x1xf32> -> tensor<1x6x1x8xf32>
  %s = poot.reshape %s5 : tensor<1x6x1x8x1xf32> -> tensor<1x6x1x8xf32>
  // q rotary
  %qf = poot.convert %q4 : tensor<1x6x4x16xbf16> -> tensor<1x6x4x16xf32>
  %qsh = poot.reshape %qf : tensor<1x6x4x16xf32> -> tensor<1x6x4x8x2xf32>
  %q05 = poot.slice %qsh {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 6, 4, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x6x4x8x2xf32>
  %q15 = poot.slice %qsh {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 6, 4, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x6x4x8x2xf32>
  %q0 = poot.reshape %q05 : tensor<1x6x4x8x1xf32> -> tensor<1x6x4x8xf32>
  %q1 = poot.reshape %q15 : tensor<1x6x4x8x1xf32> -> tensor<1x6x4x8xf32>
  %qa = poot.mul %q0, %c : tensor<1x6x4x8xf32>, tensor<1x6x1x8xf32>
  %qb = poot.mul %q1, %s : tensor<1x6x4x8xf32>, tensor<1x6x1x8xf32>
  %qo0 = poot.sub %qa, %qb : tensor<1x6x4x8xf32>, tensor<1x6x4x8xf32>
  %qc = poot.mul %q1, %c : tensor<1x6x4x8xf32>, tensor<1x6x1x8xf32>
  %qd = poot.mul %q0, %s : tensor<1x6x4x8xf32>, tensor<1x6x1x8xf32>
  %qo1 = poot.add %qc, %qd : tensor<1x6x4x8xf32>, tensor<1x6x4x8xf32>
  %qo05 = poot.reshape %qo0 : tensor<1x6x4x8xf32> -> tensor<1x6x4x8x1xf32>
  %qo15 = poot.reshape %qo1 : tensor<1x6x4x8xf32> -> tensor<1x6x4x8x1xf32>
  %qst = poot.concat %qo05, %qo15 {axis = 4 : i64} : tensor<1x6x4x8x1xf32>, tensor<1x6x4x8x1xf32>
  %qfl = poot.reshape %qst : tensor<1x6x4x8x2xf32> -> tensor<1x6x4x16xf32>
  %qro = poot.convert %qfl : tensor<1x6x4x16xf32> -> tensor<1x6x4x16xbf16>
  // k rotary
  %kf = poot.convert %k4 : tensor<1x6x2x16xbf16> -> tensor<1x6x2x16xf32>
  %ksh = poot.reshape %kf : tensor<1x6x2x16xf32> -> tensor<1x6x2x8x2xf32>
  %k05 = poot.slice %ksh {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 6, 2, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x6x2x8x2xf32>
  %k15 = poot.slice %ksh {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 6, 2, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x6x2x8x2xf32>
  %k0 = poot.reshape %k05 : tensor<1x6x2x8x1xf32> -> tensor<1x6x2x8xf32>
  %k1 = poot.reshape %k15 : tensor<1x6x2x8x1xf32> -> tensor<1x6x2x8xf32>
  %ka = poot.mul %k0, %c : tensor<1x6x2x8xf32>, tensor<1x6x1x8xf32>
  %kb = poot.mul %k1, %s : tensor<1x6x2x8xf32>, tensor<1x6x1x8xf32>
  %ko0 = poot.sub %ka, %kb : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>
  %kc = poot.mul %k1, %c : tensor<1x6x2x8xf32>, tensor<1x6x1x8xf32>
  %kd = poot.mul %k0, %s : tensor<1x6x2x8xf32>, tensor<1x6x1x8xf32>
  %ko1 = poot.add %kc, %kd : tensor<1x6x2x8xf32>, tensor<1x6x2x8xf32>
  %ko05 = poot.reshape %ko0 : tensor<1x6x2x8xf32> -> tensor<1x6x2x8x1xf32>
  %ko15 = poot.reshape %ko1 : tensor<1x6x2x8xf32> -> tensor<1x6x2x8x1xf32>
  %kst = poot.concat %ko05, %ko15 {axis = 4 : i64} : tensor<1x6x2x8x1xf32>, tensor<1x6x2x8x1xf32>
  %kfl = poot.reshape %kst : tensor<1x6x2x8x2xf32> -> tensor<1x6x2x16xf32>
  %kro = poot.convert %kfl : tensor<1x6x2x16xf32> -> tensor<1x6x2x16xbf16>
  // transpose(1, 2); unsqueeze(2).expand(..).flatten(1, 2)
  %q = poot.transpose %qro {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xbf16>
  %kh = poot.transpose %kro {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %ku = poot.reshape %kh : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %kx = poot.broadcast %ku {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %k = poot.reshape %kx : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %vu = poot.reshape %vh : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %vx = poot.broadcast %vu {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %v = poot.reshape %vx : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  // scaled_dot_product_attention(is_causal=True), math form
  %qa32 = poot.convert %q : tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xf32>
  %ka32 = poot.convert %k : tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xf32>
  %va32 = poot.convert %v : tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xf32>
  %sf = poot.constant dense<0.5> : tensor<f32>
  %qs = poot.mul %qa32, %sf : tensor<1x4x6x16xf32>, tensor<f32>
  %row = poot.iota {dim = 0 : i64} : tensor<6x6xi64>
  %col = poot.iota {dim = 1 : i64} : tensor<6x6xi64>
  %tril = poot.compare le, %col, %row : tensor<6x6xi64>, tensor<6x6xi64>
  %ntril = poot.not %tril : tensor<6x6xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %am = poot.select %ntril, %ninf, %zero : tensor<6x6xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %ka32 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xf32>
  %kts = poot.mul %kt, %sf : tensor<1x4x16x6xf32>, tensor<f32>
  %sc = poot.matmul %qs, %kts : tensor<1x4x6x16xf32>, tensor<1x4x16x6xf32>
  %x = poot.add %sc, %am : tensor<1x4x6x6xf32>, tensor<6x6xf32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %x, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x4x6x6xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x4x6x6xi1> -> tensor<1x4x6x6xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x4x6x1xf32>, tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x4x6x1xi1>, tensor<f32>, tensor<1x4x6x6xf32>
  %o = poot.matmul %ps, %va32 : tensor<1x4x6x6xf32>, tensor<1x4x6x16xf32>
  %ob = poot.convert %o : tensor<1x4x6x16xf32> -> tensor<1x4x6x16xbf16>
  %ot = poot.transpose %ob {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xbf16>
  %out = poot.reshape %ot : tensor<1x6x4x16xbf16> -> tensor<1x6x64xbf16>
  return %out : tensor<1x6x64xbf16>
}
