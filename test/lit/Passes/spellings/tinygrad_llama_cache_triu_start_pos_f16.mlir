// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// tinygrad examples/llama3 (extra/models/llama.py Attention.__call__) on a
// prefill chunk after start_pos = 4 tokens: keys = cache_kv[0].shrink((None,
// (0, start_pos + seqlen), None, None)); repeat_kv is x.repeat((1, 1, 1,
// n_rep)).reshape(bs, seqlen, n_kv_heads * n_rep, head_dim) (repeat as
// reshape/expand/reshape on the last axis); q, k, v transposed (1, 2);
// mask = Tensor.full((1, 1, seqlen, start_pos + seqlen), -inf).triu(start_pos
// + 1), triu being _tri(r, c, k).where(self, 0) with _tri = arange(r)[:,
// None] + k <= arange(c)[None, :]; scaled_dot_product_attention:
// (q @ k^T / sqrt(D) + mask).softmax(-1) @ v. GQA 4/2, D = 40, seqlen = 3,
// a cache of 12 with 7 read.

// CHECK-LABEL: func.func @tinygrad_llama_cache_triu_start_pos_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-SAME: n_rep = 2 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.158{{[0-9]*}}, causal at offset 4{{$}}
func.func @tinygrad_llama_cache_triu_start_pos_f16(%xq: tensor<1x3x4x40xf16>, %ck: tensor<1x12x2x40xf16>,
                                                   %cv: tensor<1x12x2x40xf16>) -> tensor<1x3x4x40xf16> {
  %k = poot.slice %ck {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 7, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x2x40xf16>
  %v = poot.slice %cv {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 7, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x2x40xf16>
  %k5 = poot.reshape %k : tensor<1x7x2x40xf16> -> tensor<1x7x2x1x40xf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 7, 2, 2, 40>} : tensor<1x7x2x1x40xf16>
  %kt4 = poot.reshape %kb : tensor<1x7x2x2x40xf16> -> tensor<1x7x2x80xf16>
  %kr = poot.reshape %kt4 : tensor<1x7x2x80xf16> -> tensor<1x7x4x40xf16>
  %v5 = poot.reshape %v : tensor<1x7x2x40xf16> -> tensor<1x7x2x1x40xf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 7, 2, 2, 40>} : tensor<1x7x2x1x40xf16>
  %vt4 = poot.reshape %vb : tensor<1x7x2x2x40xf16> -> tensor<1x7x2x80xf16>
  %vr = poot.reshape %vt4 : tensor<1x7x2x80xf16> -> tensor<1x7x4x40xf16>
  %q = poot.transpose %xq {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x40xf16>
  %kh = poot.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x4x40xf16>
  %vh = poot.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x4x40xf16>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x40xf16>
  %qk = poot.matmul %q, %kt : tensor<1x4x3x40xf16>, tensor<1x4x40x7xf16>
  %sq = poot.constant dense<6.32455532> : tensor<f16>
  %s = poot.div %qk, %sq : tensor<1x4x3x7xf16>, tensor<f16>
  %r = poot.iota {dim = 0 : i64} : tensor<3xi32>
  %rr = poot.reshape %r : tensor<3xi32> -> tensor<3x1xi32>
  %kk = poot.constant dense<5> : tensor<i32>
  %rk = poot.add %rr, %kk : tensor<3x1xi32>, tensor<i32>
  %c = poot.iota {dim = 0 : i64} : tensor<7xi32>
  %cc = poot.reshape %c : tensor<7xi32> -> tensor<1x7xi32>
  %tri = poot.compare le, %rk, %cc : tensor<3x1xi32>, tensor<1x7xi32>
  %full = poot.constant dense<0xFC00> : tensor<1x1x3x7xf16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %mask = poot.select %tri, %full, %zero : tensor<3x7xi1>, tensor<1x1x3x7xf16>, tensor<f16>
  %sm = poot.add %s, %mask : tensor<1x4x3x7xf16>, tensor<1x1x3x7xf16>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x3x7xf16>
  %d = poot.sub %sm, %mx : tensor<1x4x3x7xf16>, tensor<1x4x3x1xf16>
  %e = poot.exp %d : tensor<1x4x3x7xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x7xf16>
  %p = poot.div %e, %z : tensor<1x4x3x7xf16>, tensor<1x4x3x1xf16>
  %o = poot.matmul %p, %vh : tensor<1x4x3x7xf16>, tensor<1x4x7x40xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x40xf16>
  return %ot : tensor<1x3x4x40xf16>
}
