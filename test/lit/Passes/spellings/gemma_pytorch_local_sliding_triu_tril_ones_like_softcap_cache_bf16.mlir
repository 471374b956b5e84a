// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// google/gemma_pytorch (gemma/model.py at "Supporting Gemma V2"),
// GemmaAttention.forward for a LOCAL_SLIDING layer in the prefill step of
// GemmaForCausalLM.generate, bf16 weights: generate builds mask_tensor =
// triu(full((1, 1, S, S), -2.3819763e38), 1) (f32) and takes
// index_select(2, input_positions) with input_positions = arange(0,
// min_prompt_len); kv_write_indices defaults to input_positions. The
// attention splits the fused qkv and views [B, L, H, D]; apply_rotary_emb:
// view_as_complex(stack(chunk(x.transpose(1, 2).float(), 2, -1), -1)) *
// freqs_cis (the halves as real and imaginary parts, the complex product
// written out), view_as_real(..).type_as(x), cat(chunk(.., 2, -1), -2),
// reshape, transpose(1, 2); k_cache.index_copy_(1, kv_write_indices, xk)
// and v alike ([B, S, Hkv, D] caches); repeat_interleave(key, 2, dim=2);
// transpose(1, 2); q.mul_(query_pre_attn_scalar ** -0.5); scores = q @ k^T;
// all_ones = ones_like(mask); sliding_mask = triu(all_ones, -W + 1) *
// tril(all_ones, W - 1); mask = where(sliding_mask == 1, mask,
// -2.3819763e38); attn_logit_softcapping: div_(50), tanh, mul_(50) in bf16;
// scores + mask (bf16 + f32 gives f32); softmax(scores.float()).type_as(q);
// @ v; transpose(1, 2).view(B, L, -1). B = 1, L = 5, cache S = 8, GQA 4/2,
// D = 16, query_pre_attn_scalar = 64, sliding_window_size W = 3.

// CHECK-LABEL: func.func @gemma_pytorch_local_sliding_triu_tril_ones_like_softcap_cache_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 1.250000e-01 : f64, softcap = 5.000000e+01 : f64, window = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.125, softcap 50, causal, window 3{{$}}
func.func @gemma_pytorch_local_sliding_triu_tril_ones_like_softcap_cache_bf16(
    %qkv: tensor<1x5x128xbf16>, %freqs_re: tensor<5x8xf32>, %freqs_im: tensor<5x8xf32>,
    %k_cache: tensor<1x8x2x16xbf16>, %v_cache: tensor<1x8x2x16xbf16>) -> tensor<1x5x64xbf16> {
  // generate(): mask_tensor and input_positions
  %input_positions = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %tr = poot.iota {dim = 2 : i64} : tensor<1x1x8x8xi64>
  %tc = poot.iota {dim = 3 : i64} : tensor<1x1x8x8xi64>
  %tdiff = poot.sub %tc, %tr : tensor<1x1x8x8xi64>, tensor<1x1x8x8xi64>
  %one_i = poot.constant dense<1> : tensor<i64>
  %tup = poot.compare ge, %tdiff, %one_i : tensor<1x1x8x8xi64>, tensor<i64>
  %fill = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %mask_tensor = poot.select %tup, %fill, %zf : tensor<1x1x8x8xi1>, tensor<f32>, tensor<f32>
  %mask = poot.gather %mask_tensor[%input_positions] {axis = 2 : i64} : tensor<1x1x8x8xf32>, tensor<5xi64>
  // qkv_proj output split, view
  %xq0 = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 5, 64>, step = array<i64: 1, 1, 1>} : tensor<1x5x128xbf16>
  %xk0 = poot.slice %qkv {start = array<i64: 0, 0, 64>, limit = array<i64: 1, 5, 96>, step = array<i64: 1, 1, 1>} : tensor<1x5x128xbf16>
  %xv0 = poot.slice %qkv {start = array<i64: 0, 0, 96>, limit = array<i64: 1, 5, 128>, step = array<i64: 1, 1, 1>} : tensor<1x5x128xbf16>
  %xq = poot.reshape %xq0 : tensor<1x5x64xbf16> -> tensor<1x5x4x16xbf16>
  %xk = poot.reshape %xk0 : tensor<1x5x32xbf16> -> tensor<1x5x2x16xbf16>
  %xv = poot.reshape %xv0 : tensor<1x5x32xbf16> -> tensor<1x5x2x16xbf16>
  // apply_rotary_emb (freqs_cis = freqs_re + i freqs_im)
  %qt = poot.transpose %xq {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x16xbf16>
  %qf = poot.convert %qt : tensor<1x4x5x16xbf16> -> tensor<1x4x5x16xf32>
  %qa = poot.slice %qf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xf32>
  %qb = poot.slice %qf {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x5x16xf32>
  %qac = poot.mul %qa, %freqs_re : tensor<1x4x5x8xf32>, tensor<5x8xf32>
  %qbs = poot.mul %qb, %freqs_im : tensor<1x4x5x8xf32>, tensor<5x8xf32>
  %qre = poot.sub %qac, %qbs : tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>
  %qas = poot.mul %qa, %freqs_im : tensor<1x4x5x8xf32>, tensor<5x8xf32>
  %qbc = poot.mul %qb, %freqs_re : tensor<1x4x5x8xf32>, tensor<5x8xf32>
  %qim = poot.add %qas, %qbc : tensor<1x4x5x8xf32>, tensor<1x4x5x8xf32>
  %qre5 = poot.reshape %qre : tensor<1x4x5x8xf32> -> tensor<1x4x5x8x1xf32>
  %qim5 = poot.reshape %qim : tensor<1x4x5x8xf32> -> tensor<1x4x5x8x1xf32>
  %qvr = poot.concat %qre5, %qim5 {axis = 4 : i64} : tensor<1x4x5x8x1xf32>, tensor<1x4x5x8x1xf32>
  %qvb = poot.convert %qvr : tensor<1x4x5x8x2xf32> -> tensor<1x4x5x8x2xbf16>
  %qc0 = poot.slice %qvb {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 4, 5, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x5x8x2xbf16>
  %qc1 = poot.slice %qvb {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 4, 5, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x4x5x8x2xbf16>
  %qcc = poot.concat %qc0, %qc1 {axis = 3 : i64} : tensor<1x4x5x8x1xbf16>, tensor<1x4x5x8x1xbf16>
  %qr4 = poot.reshape %qcc : tensor<1x4x5x16x1xbf16> -> tensor<1x4x5x16xbf16>
  %qro = poot.transpose %qr4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x16xbf16>
  %kt = poot.transpose %xk {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xbf16>
  %kf = poot.convert %kt : tensor<1x2x5x16xbf16> -> tensor<1x2x5x16xf32>
  %ka = poot.slice %kf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xf32>
  %kb = poot.slice %kf {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x5x16xf32>
  %kac = poot.mul %ka, %freqs_re : tensor<1x2x5x8xf32>, tensor<5x8xf32>
  %kbs = poot.mul %kb, %freqs_im : tensor<1x2x5x8xf32>, tensor<5x8xf32>
  %kre = poot.sub %kac, %kbs : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>
  %kas = poot.mul %ka, %freqs_im : tensor<1x2x5x8xf32>, tensor<5x8xf32>
  %kbc = poot.mul %kb, %freqs_re : tensor<1x2x5x8xf32>, tensor<5x8xf32>
  %kim = poot.add %kas, %kbc : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>
  %kre5 = poot.reshape %kre : tensor<1x2x5x8xf32> -> tensor<1x2x5x8x1xf32>
  %kim5 = poot.reshape %kim : tensor<1x2x5x8xf32> -> tensor<1x2x5x8x1xf32>
  %kvr = poot.concat %kre5, %kim5 {axis = 4 : i64} : tensor<1x2x5x8x1xf32>, tensor<1x2x5x8x1xf32>
  %kvb = poot.convert %kvr : tensor<1x2x5x8x2xf32> -> tensor<1x2x5x8x2xbf16>
  %kc0 = poot.slice %kvb {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 5, 8, 1>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x5x8x2xbf16>
  %kc1 = poot.slice %kvb {start = array<i64: 0, 0, 0, 0, 1>, limit = array<i64: 1, 2, 5, 8, 2>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x5x8x2xbf16>
  %kcc = poot.concat %kc0, %kc1 {axis = 3 : i64} : tensor<1x2x5x8x1xbf16>, tensor<1x2x5x8x1xbf16>
  %kr4 = poot.reshape %kcc : tensor<1x2x5x16x1xbf16> -> tensor<1x2x5x16xbf16>
  %kro = poot.transpose %kr4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x16xbf16>
  // k_cache.index_copy_(1, kv_write_indices, xk), v alike
  %kct = poot.transpose %k_cache {perm = array<i64: 1, 0, 2, 3>} : tensor<1x8x2x16xbf16>
  %knt = poot.transpose %kro {perm = array<i64: 1, 0, 2, 3>} : tensor<1x5x2x16xbf16>
  %kcw = poot.scatter_update %kct[%input_positions], %knt : tensor<8x1x2x16xbf16>, tensor<5xi64>, tensor<5x1x2x16xbf16>
  %key = poot.transpose %kcw {perm = array<i64: 1, 0, 2, 3>} : tensor<8x1x2x16xbf16>
  %vct = poot.transpose %v_cache {perm = array<i64: 1, 0, 2, 3>} : tensor<1x8x2x16xbf16>
  %vnt = poot.transpose %xv {perm = array<i64: 1, 0, 2, 3>} : tensor<1x5x2x16xbf16>
  %vcw = poot.scatter_update %vct[%input_positions], %vnt : tensor<8x1x2x16xbf16>, tensor<5xi64>, tensor<5x1x2x16xbf16>
  %value = poot.transpose %vcw {perm = array<i64: 1, 0, 2, 3>} : tensor<8x1x2x16xbf16>
  // repeat_interleave(.., 2, dim=2)
  %hh = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %hk = poot.div %hh, %two : tensor<4xi64>, tensor<i64>
  %keyr = poot.gather %key[%hk] {axis = 2 : i64} : tensor<1x8x2x16xbf16>, tensor<4xi64>
  %valr = poot.gather %value[%hk] {axis = 2 : i64} : tensor<1x8x2x16xbf16>, tensor<4xi64>
  %q = poot.transpose %qro {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x16xbf16>
  %k = poot.transpose %keyr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xbf16>
  %v = poot.transpose %valr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xbf16>
  %scaling = poot.constant dense<0.125> : tensor<bf16>
  %qs = poot.mul %q, %scaling : tensor<1x4x5x16xbf16>, tensor<bf16>
  %kT = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xbf16>
  %scores = poot.matmul %qs, %kT : tensor<1x4x5x16xbf16>, tensor<1x4x16x8xbf16>
  // local sliding mask
  %lr = poot.iota {dim = 2 : i64} : tensor<1x1x5x8xi64>
  %lc = poot.iota {dim = 3 : i64} : tensor<1x1x5x8xi64>
  %ldiff = poot.sub %lc, %lr : tensor<1x1x5x8xi64>, tensor<1x1x5x8xi64>
  %lo = poot.constant dense<-2> : tensor<i64>
  %hi = poot.constant dense<2> : tensor<i64>
  %ones = poot.constant dense<1.0> : tensor<1x1x5x8xf32>
  %ge = poot.compare ge, %ldiff, %lo : tensor<1x1x5x8xi64>, tensor<i64>
  %triu = poot.select %ge, %ones, %zf : tensor<1x1x5x8xi1>, tensor<1x1x5x8xf32>, tensor<f32>
  %le = poot.compare le, %ldiff, %hi : tensor<1x1x5x8xi64>, tensor<i64>
  %tril = poot.select %le, %ones, %zf : tensor<1x1x5x8xi1>, tensor<1x1x5x8xf32>, tensor<f32>
  %sliding = poot.mul %triu, %tril : tensor<1x1x5x8xf32>, tensor<1x1x5x8xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %sl1 = poot.compare eq, %sliding, %onef : tensor<1x1x5x8xf32>, tensor<f32>
  %lmask = poot.select %sl1, %mask, %fill : tensor<1x1x5x8xi1>, tensor<1x1x5x8xf32>, tensor<f32>
  // attn_logit_softcapping
  %cap = poot.constant dense<50.0> : tensor<bf16>
  %c1 = poot.div %scores, %cap : tensor<1x4x5x8xbf16>, tensor<bf16>
  %c2 = poot.tanh %c1 : tensor<1x4x5x8xbf16>
  %c3 = poot.mul %c2, %cap : tensor<1x4x5x8xbf16>, tensor<bf16>
  %c3f = poot.convert %c3 : tensor<1x4x5x8xbf16> -> tensor<1x4x5x8xf32>
  %sm = poot.add %c3f, %lmask : tensor<1x4x5x8xf32>, tensor<1x1x5x8xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x5x8xf32>
  %d = poot.sub %sm, %mx : tensor<1x4x5x8xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x8xf32>
  %p = poot.div %e, %z : tensor<1x4x5x8xf32>, tensor<1x4x5x1xf32>
  %pb = poot.convert %p : tensor<1x4x5x8xf32> -> tensor<1x4x5x8xbf16>
  %o = poot.matmul %pb, %v : tensor<1x4x5x8xbf16>, tensor<1x4x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x16xbf16>
  %out = poot.reshape %ot : tensor<1x5x4x16xbf16> -> tensor<1x5x64xbf16>
  return %out : tensor<1x5x64xbf16>
}
