// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// OneFlow LiBai projects/Llama/llama.py, MultiheadAttention.forward on a
// prefill (no past_key_value, no adapter), f16, with the mask of
// CasualMask.forward(input_ids, past_length=0, attention_mask=None,
// input_dtype=f16): the buffer built at init as flow.full((N, N),
// finfo(f16).min) masked_fill_(arange < (arange + 1).view(N, 1), 0)
// .to(f16) (a traced constant), sliced [:L, :L], unsqueeze(0).unsqueeze(1)
// .expand(bsz, 1, L, L). In the attention: query_key_value(h).view(bsz, -1,
// H, 3 * hd).permute(0, 2, 1, 3) and flow.chunk(.., 3, dim=-1): q, k and v
// interleaved per head in the fused projection; RotaryEmbedding returns
// cos_cached[:kv_seq_len], sin_cached[:kv_seq_len]; apply_rotary_pos_emb
// gathers cos[position_ids].unsqueeze(1) and uses rotate_half (cat(-x2,
// x1)); attention_scores = flow.matmul(query, key, transpose_b=True,
// alpha=1/sqrt(hd)); + attention_mask; flow.softmax(dim=-1) in f16 (no
// upcast); flow.matmul(weights, value).transpose(1, 2).flatten(2).
// B 2, L 5, H 2, hd 16, cache tables of 8 positions, position_ids declared
// inside the 5 sliced rows.
//
// Strongest form: both rotaries as poot.rope (half, width 16), causal from
// the finfo.min table (each row keeps its diagonal), n_rep 1, scale 1/4.

// CHECK-LABEL: func.func @libai_llama_packed_qkv_per_head_chunk_rope_position_ids_finfo_min_table_softmax_f16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @libai_llama_packed_qkv_per_head_chunk_rope_position_ids_finfo_min_table_softmax_f16(
    %qkv0: tensor<2x5x96xf16>, %cos_cached: tensor<8x16xf16>, %sin_cached: tensor<8x16xf16>,
    %position_ids: tensor<2x5xi64> {poot.range = array<i64: 0, 5>}) -> tensor<2x5x32xf16> {
  // query_key_value.view(bsz, -1, H, 3 * hd).permute(0, 2, 1, 3); flow.chunk(3, dim=-1)
  %qkv4 = poot.reshape %qkv0 : tensor<2x5x96xf16> -> tensor<2x5x2x48xf16>
  %qkv = poot.transpose %qkv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x2x48xf16>
  %q = poot.slice %qkv {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x48xf16>
  %k = poot.slice %qkv {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 2, 5, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x48xf16>
  %v = poot.slice %qkv {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 2, 2, 5, 48>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x48xf16>
  // cos_cached[:seq_len], sin_cached[:seq_len]
  %cs = poot.slice %cos_cached {start = array<i64: 0, 0>, limit = array<i64: 5, 16>, step = array<i64: 1, 1>} : tensor<8x16xf16>
  %sn = poot.slice %sin_cached {start = array<i64: 0, 0>, limit = array<i64: 5, 16>, step = array<i64: 1, 1>} : tensor<8x16xf16>
  // cos[position_ids].unsqueeze(1)
  %cg = poot.gather %cs[%position_ids] {axis = 0 : i64} : tensor<5x16xf16>, tensor<2x5xi64>
  %sg = poot.gather %sn[%position_ids] {axis = 0 : i64} : tensor<5x16xf16>, tensor<2x5xi64>
  %cos = poot.reshape %cg : tensor<2x5x16xf16> -> tensor<2x1x5x16xf16>
  %sin = poot.reshape %sg : tensor<2x5x16xf16> -> tensor<2x1x5x16xf16>
  // q * cos + rotate_half(q) * sin
  %q1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x16xf16>
  %q2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x16xf16>
  %qn2 = poot.neg %q2 : tensor<2x2x5x8xf16>
  %qrh = poot.concat %qn2, %q1 {axis = 3 : i64} : tensor<2x2x5x8xf16>, tensor<2x2x5x8xf16>
  %qa = poot.mul %q, %cos : tensor<2x2x5x16xf16>, tensor<2x1x5x16xf16>
  %qb = poot.mul %qrh, %sin : tensor<2x2x5x16xf16>, tensor<2x1x5x16xf16>
  %qe = poot.add %qa, %qb : tensor<2x2x5x16xf16>, tensor<2x2x5x16xf16>
  %k1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 5, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x16xf16>
  %k2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 2, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x5x16xf16>
  %kn2 = poot.neg %k2 : tensor<2x2x5x8xf16>
  %krh = poot.concat %kn2, %k1 {axis = 3 : i64} : tensor<2x2x5x8xf16>, tensor<2x2x5x8xf16>
  %ka = poot.mul %k, %cos : tensor<2x2x5x16xf16>, tensor<2x1x5x16xf16>
  %kb = poot.mul %krh, %sin : tensor<2x2x5x16xf16>, tensor<2x1x5x16xf16>
  %ke = poot.add %ka, %kb : tensor<2x2x5x16xf16>, tensor<2x2x5x16xf16>
  // CasualMask: self.mask[:tgt_len, :tgt_len].unsqueeze(0).unsqueeze(1).expand(bsz, 1, L, L)
  %table = poot.constant dense<[[0.0, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04], [0.0, 0.0, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04], [0.0, 0.0, 0.0, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04], [0.0, 0.0, 0.0, 0.0, -6.550400e+04, -6.550400e+04, -6.550400e+04, -6.550400e+04], [0.0, 0.0, 0.0, 0.0, 0.0, -6.550400e+04, -6.550400e+04, -6.550400e+04], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -6.550400e+04, -6.550400e+04], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -6.550400e+04], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<8x8xf16>
  %cm = poot.slice %table {start = array<i64: 0, 0>, limit = array<i64: 5, 5>, step = array<i64: 1, 1>} : tensor<8x8xf16>
  %cm4 = poot.reshape %cm : tensor<5x5xf16> -> tensor<1x1x5x5xf16>
  %mask = poot.broadcast %cm4 {shape = array<i64: 2, 1, 5, 5>} : tensor<1x1x5x5xf16>
  // flow.matmul(query, key, transpose_b=True, alpha=norm_factor)
  %kt = poot.transpose %ke {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x5x16xf16>
  %s0 = poot.matmul %qe, %kt : tensor<2x2x5x16xf16>, tensor<2x2x16x5xf16>
  %alpha = poot.constant dense<2.500000e-01> : tensor<f16>
  %s = poot.mul %s0, %alpha : tensor<2x2x5x5xf16>, tensor<f16>
  // attention_weights = attention_scores + attention_mask; flow.softmax(dim=-1)
  %w = poot.add %s, %mask : tensor<2x2x5x5xf16>, tensor<2x1x5x5xf16>
  %mx = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<2x2x5x5xf16>
  %d = poot.sub %w, %mx : tensor<2x2x5x5xf16>, tensor<2x2x5x1xf16>
  %e = poot.exp %d : tensor<2x2x5x5xf16>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x5x5xf16>
  %p = poot.div %e, %zs : tensor<2x2x5x5xf16>, tensor<2x2x5x1xf16>
  // context = flow.matmul(attention_weights, value).transpose(1, 2).flatten(2)
  %o = poot.matmul %p, %v : tensor<2x2x5x5xf16>, tensor<2x2x5x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x5x16xf16>
  %out = poot.reshape %ot : tensor<2x5x2x16xf16> -> tensor<2x5x32xf16>
  return %out : tensor<2x5x32xf16>
}
