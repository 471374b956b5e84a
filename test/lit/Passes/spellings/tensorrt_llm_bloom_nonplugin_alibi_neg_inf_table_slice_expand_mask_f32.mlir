// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// NVIDIA TensorRT-LLM 0.5 (tensorrt_llm/layers/attention.py, Attention
// .forward without the GPT attention plugin) as BLOOM builds it
// (position_embedding_type = alibi, attention_mask_type = causal), the
// context phase without a KV cache, dtype float32. The fused qkv is
// split([hidden, kv_size, kv_size], dim=2) and each part viewed [bs,
// seqlen, heads, head_size] and permuted [0, 2, 1, 3]. The causal mask is
// a constant: np.tril(ones((max_pos, max_pos))) negated, mask_buf = 0
// with -inf where the table is false, expanded to [1, 1, max_pos,
// max_pos]; causal_mask = slice(buffer, starts [0, 0, key_length -
// query_length, 0], sizes [1, 1, query_length, key_length]), here the
// static start 0 (max_position_embeddings = 16). The padding input goes
// through functional.expand_mask: view [bs, 1, 1, src_len], expand [bs, 1,
// tgt_len, src_len], where(mask == 0, -inf, (1 - mask).cast('float32')).
// generate_alibi_slopes gives FasterTransformer's slopes as a constant
// [1, H, 1, 1] (2^-2, 2^-4, 2^-6, 2^-8 for 4 heads) and
// generate_alibi_biases multiplies them by arange(0, key_length) (an int32
// fill) viewed [1, 1, 1, key_length] and cast to float32: a bias by the
// key position alone.
// bias = attention_mask + alibi_biases; under precision('float32'):
// scores = matmul(cast(q, f32), cast(k.permute([0, 1, 3, 2]), f32)) /
// norm_factor (sqrt(head_size) = 4); bias = bias + causal_mask; scores +
// bias; softmax(dim=-1); matmul(probs, value).permute([0, 2, 1, 3]).view
// ([bs, seqlen, hidden]). bs = 2, seqlen = 6, 4 heads of 16.
// slope[h] * t differs from ALiBi's slope[h] * (t - i) by a constant per
// row, which the softmax does not see, and the sliced table is t <= i, so
// the strongest form is causal with the four ALiBi slopes, scale 0.25,
// and the padding (an input) as the only tensor mask.

// CHECK-LABEL: func.func @tensorrt_llm_bloom_nonplugin_alibi_neg_inf_table_slice_expand_mask_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{[^)]+}}) {alibi_slopes = array<f64: 2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03>, causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal, alibi{{$}}
func.func @tensorrt_llm_bloom_nonplugin_alibi_neg_inf_table_slice_expand_mask_f32(
    %qkv: tensor<2x6x192xf32>,
    %attention_mask: tensor<2x6xi32> {poot.range = array<i64: 0, 2>}) -> tensor<2x6x64xf32> {
  // split(qkv, [hidden, kv_size, kv_size], dim=2); transpose_for_scores
  %q3 = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 6, 64>, step = array<i64: 1, 1, 1>} : tensor<2x6x192xf32>
  %k3 = poot.slice %qkv {start = array<i64: 0, 0, 64>, limit = array<i64: 2, 6, 128>, step = array<i64: 1, 1, 1>} : tensor<2x6x192xf32>
  %v3 = poot.slice %qkv {start = array<i64: 0, 0, 128>, limit = array<i64: 2, 6, 192>, step = array<i64: 1, 1, 1>} : tensor<2x6x192xf32>
  %q4 = poot.reshape %q3 : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %query = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %k4 = poot.reshape %k3 : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %key = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %v4 = poot.reshape %v3 : tensor<2x6x64xf32> -> tensor<2x6x4x16xf32>
  %value = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  // causal_mask = slice(constant(mask_buf), [0, 0, key_length - query_length, 0], [1, 1, 6, 6])
  %buffer = poot.constant dense<[[[[0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]> : tensor<1x1x16x16xf32>
  %causal_mask = poot.slice %buffer {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xf32>
  // expand_mask(attention_mask, shape(query, 2))
  %am4 = poot.reshape %attention_mask : tensor<2x6xi32> -> tensor<2x1x1x6xi32>
  %amx = poot.broadcast %am4 {shape = array<i64: 2, 1, 6, 6>} : tensor<2x1x1x6xi32>
  %zi = poot.constant dense<0> : tensor<i32>
  %is0 = poot.compare eq, %amx, %zi : tensor<2x1x6x6xi32>, tensor<i32>
  %oi = poot.constant dense<1> : tensor<i32>
  %inv = poot.sub %oi, %amx : tensor<i32>, tensor<2x1x6x6xi32>
  %invf = poot.convert %inv : tensor<2x1x6x6xi32> -> tensor<2x1x6x6xf32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %pad = poot.select %is0, %ninf, %invf : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x1x6x6xf32>
  // generate_alibi_slopes(4) and generate_alibi_biases(slopes, key_length)
  %slopes = poot.constant dense<[[[[0.25]], [[0.0625]], [[0.015625]], [[0.00390625]]]]> : tensor<1x4x1x1xf32>
  %ari = poot.iota {dim = 0 : i64} : tensor<6xi32>
  %arvi = poot.reshape %ari : tensor<6xi32> -> tensor<1x1x1x6xi32>
  %arv = poot.convert %arvi : tensor<1x1x1x6xi32> -> tensor<1x1x1x6xf32>
  %alibi = poot.mul %slopes, %arv : tensor<1x4x1x1xf32>, tensor<1x1x1x6xf32>
  %bias0 = poot.add %pad, %alibi : tensor<2x1x6x6xf32>, tensor<1x4x1x6xf32>
  // key.permute([0, 1, 3, 2]); matmul(cast(query, f32), cast(key, f32)) / norm_factor
  %kt = poot.transpose %key {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x16xf32>
  %s = poot.matmul %query, %kt : tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>
  %nf = poot.constant dense<4.0> : tensor<f32>
  %sd = poot.div %s, %nf : tensor<2x4x6x6xf32>, tensor<f32>
  // bias = bias + causal_mask; attention_scores + bias
  %bias = poot.add %bias0, %causal_mask : tensor<2x4x6x6xf32>, tensor<1x1x6x6xf32>
  %x = poot.add %sd, %bias : tensor<2x4x6x6xf32>, tensor<2x4x6x6xf32>
  // softmax(attention_scores, dim=-1)
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %d = poot.sub %x, %m : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %e = poot.exp %d : tensor<2x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %p = poot.div %e, %z : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  // matmul(attention_probs, value).permute([0, 2, 1, 3]).view([bs, seqlen, hidden])
  %o = poot.matmul %p, %value : tensor<2x4x6x6xf32>, tensor<2x4x6x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x16xf32>
  %out = poot.reshape %ot : tensor<2x6x4x16xf32> -> tensor<2x6x64xf32>
  return %out : tensor<2x6x64xf32>
}
