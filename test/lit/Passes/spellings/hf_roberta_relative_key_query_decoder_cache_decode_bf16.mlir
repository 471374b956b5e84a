// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers RoBERTa as a decoder (models/roberta/modeling_roberta.py,
// RobertaSelfAttention.forward, position_embedding_type =
// "relative_key_query", is_decoder, use_cache) on one decode step in bf16:
// key_layer = cat([past_key_value[0], key_layer], dim=2), likewise values;
// attention_scores = q @ k^T; position_ids_l = tensor(key_length - 1)
// .view(-1, 1) (use_cache), position_ids_r = arange(key_length);
// distance = l - r; distance_embedding(distance + max_position_embeddings
// - 1) .to(bf16); scores + einsum("bhld,lrd->bhlr", q, pe) +
// einsum("bhrd,lrd->bhlr", k, pe) (the second a bias computed from the
// keys); / sqrt(head_size); + extended mask; softmax(dim=-1); @ v. The
// mask is ModuleUtilsMixin.get_extended_attention_mask for a decoder:
// create_extended_attention_mask_for_decoder (seq_ids[None, None, :]
// .repeat(B, 1, 1) <= seq_ids[None, :, None] for the one new token,
// cat'd after a ones prefix of the past length, times attention_mask[:,
// None, None, :], int64), .to(bf16), (1.0 - mask) * finfo(bf16).min.
// Padding may hide every key of a row: a tensor mask.
// max_position_embeddings = 8, past = 5, Lk = 6, B = 2, H = 2, D = 16.

// CHECK-LABEL: func.func @hf_roberta_relative_key_query_decoder_cache_decode_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_roberta_relative_key_query_decoder_cache_decode_bf16(
    %xq: tensor<2x1x32xbf16>, %xk: tensor<2x1x32xbf16>, %xv: tensor<2x1x32xbf16>,
    %past_k: tensor<2x2x5x16xbf16>, %past_v: tensor<2x2x5x16xbf16>,
    %distance_embedding: tensor<15x16xbf16>,
    %attention_mask: tensor<2x6xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x1x32xbf16> {
  // transpose_for_scores
  %q4 = poot.reshape %xq : tensor<2x1x32xbf16> -> tensor<2x1x2x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x16xbf16>
  %k4 = poot.reshape %xk : tensor<2x1x32xbf16> -> tensor<2x1x2x16xbf16>
  %kn = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x16xbf16>
  %v4 = poot.reshape %xv : tensor<2x1x32xbf16> -> tensor<2x1x2x16xbf16>
  %vn = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x2x16xbf16>
  // key_layer = torch.cat([past_key_value[0], key_layer], dim=2)
  %k = poot.concat %past_k, %kn {axis = 2 : i64} : tensor<2x2x5x16xbf16>, tensor<2x2x1x16xbf16>
  %v = poot.concat %past_v, %vn {axis = 2 : i64} : tensor<2x2x5x16xbf16>, tensor<2x2x1x16xbf16>
  // attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xbf16>
  %s = poot.matmul %q, %kt : tensor<2x2x1x16xbf16>, tensor<2x2x16x6xbf16>
  // position_ids_l = tensor(key_length - 1).view(-1, 1); distance = l - r
  %pl = poot.constant dense<5> : tensor<1x1xi64>
  %pr = poot.iota {dim = 1 : i64} : tensor<1x6xi64>
  %dist = poot.sub %pl, %pr : tensor<1x1xi64>, tensor<1x6xi64>
  %off = poot.constant dense<7> : tensor<i64>
  %didx = poot.add %dist, %off : tensor<1x6xi64>, tensor<i64>
  %pe = poot.gather %distance_embedding[%didx] {axis = 0 : i64} : tensor<15x16xbf16>, tensor<1x6xi64>
  // einsum("bhld,lrd->bhlr", query_layer, positional_embedding): bmm over l
  %eq0 = poot.transpose %q {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x1x16xbf16>
  %eq = poot.reshape %eq0 : tensor<1x2x2x16xbf16> -> tensor<1x4x16xbf16>
  %ep = poot.transpose %pe {perm = array<i64: 0, 2, 1>} : tensor<1x6x16xbf16>
  %rq0 = poot.matmul %eq, %ep : tensor<1x4x16xbf16>, tensor<1x16x6xbf16>
  %rq1 = poot.reshape %rq0 : tensor<1x4x6xbf16> -> tensor<1x2x2x6xbf16>
  %rq = poot.transpose %rq1 {perm = array<i64: 1, 2, 0, 3>} : tensor<1x2x2x6xbf16>
  // einsum("bhrd,lrd->bhlr", key_layer, positional_embedding): bmm over r
  %ek0 = poot.transpose %k {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x6x16xbf16>
  %ek = poot.reshape %ek0 : tensor<6x2x2x16xbf16> -> tensor<6x4x16xbf16>
  %epk = poot.transpose %pe {perm = array<i64: 1, 2, 0>} : tensor<1x6x16xbf16>
  %rk0 = poot.matmul %ek, %epk : tensor<6x4x16xbf16>, tensor<6x16x1xbf16>
  %rk1 = poot.reshape %rk0 : tensor<6x4x1xbf16> -> tensor<6x2x2x1xbf16>
  %rk = poot.transpose %rk1 {perm = array<i64: 1, 2, 3, 0>} : tensor<6x2x2x1xbf16>
  %s1 = poot.add %s, %rq : tensor<2x2x1x6xbf16>, tensor<2x2x1x6xbf16>
  %s2 = poot.add %s1, %rk : tensor<2x2x1x6xbf16>, tensor<2x2x1x6xbf16>
  // attention_scores / math.sqrt(self.attention_head_size)
  %sq = poot.constant dense<4.0> : tensor<bf16>
  %s3 = poot.div %s2, %sq : tensor<2x2x1x6xbf16>, tensor<bf16>
  // create_extended_attention_mask_for_decoder((B, 1), attention_mask)
  %seq = poot.iota {dim = 2 : i64} : tensor<2x1x1xi64>
  %seqr = poot.iota {dim = 1 : i64} : tensor<1x1x1xi64>
  %causal_b = poot.compare le, %seq, %seqr : tensor<2x1x1xi64>, tensor<1x1x1xi64>
  %causal_i = poot.convert %causal_b : tensor<2x1x1xi1> -> tensor<2x1x1xi64>
  %prefix = poot.constant dense<1> : tensor<2x1x5xi64>
  %causal = poot.concat %prefix, %causal_i {axis = 2 : i64} : tensor<2x1x5xi64>, tensor<2x1x1xi64>
  %c4 = poot.reshape %causal : tensor<2x1x6xi64> -> tensor<2x1x1x6xi64>
  %am4 = poot.reshape %attention_mask : tensor<2x6xi64> -> tensor<2x1x1x6xi64>
  %ext = poot.mul %c4, %am4 : tensor<2x1x1x6xi64>, tensor<2x1x1x6xi64>
  // extended_attention_mask.to(bf16); (1.0 - m) * finfo(bf16).min
  %extf = poot.convert %ext : tensor<2x1x1x6xi64> -> tensor<2x1x1x6xbf16>
  %one = poot.constant dense<1.0> : tensor<bf16>
  %inv = poot.sub %one, %extf : tensor<bf16>, tensor<2x1x1x6xbf16>
  %fmin = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.mul %inv, %fmin : tensor<2x1x1x6xbf16>, tensor<bf16>
  %x = poot.add %s3, %mask : tensor<2x2x1x6xbf16>, tensor<2x1x1x6xbf16>
  // nn.functional.softmax(attention_scores, dim=-1) (bf16 in, f32 accumulation, bf16 out)
  %xf = poot.convert %x : tensor<2x2x1x6xbf16> -> tensor<2x2x1x6xf32>
  %mx = poot.reduce_max %xf {axis = 3 : i64, keepdim} : tensor<2x2x1x6xf32>
  %d = poot.sub %xf, %mx : tensor<2x2x1x6xf32>, tensor<2x2x1x1xf32>
  %e = poot.exp %d : tensor<2x2x1x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x1x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x1x6xf32>, tensor<2x2x1x1xf32>
  %pb = poot.convert %p : tensor<2x2x1x6xf32> -> tensor<2x2x1x6xbf16>
  // context_layer = torch.matmul(attention_probs, value_layer), permuted back
  %o0 = poot.matmul %pb, %v : tensor<2x2x1x6xbf16>, tensor<2x2x6x16xbf16>
  %o1 = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x1x16xbf16>
  %o = poot.reshape %o1 : tensor<2x1x2x16xbf16> -> tensor<2x1x32xbf16>
  return %o : tensor<2x1x32xbf16>
}
