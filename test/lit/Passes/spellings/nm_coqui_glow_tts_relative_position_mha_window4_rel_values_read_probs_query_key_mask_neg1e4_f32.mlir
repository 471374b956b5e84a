// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, Coqui TTS TTS/tts/layers/glow_tts/transformer.py,
// RelativePositionMultiHeadAttention.attention with rel_attn_window_size = 4
// (Glow-TTS's encoder, heads_share), as RelativePositionTransformer calls it
// with attn_mask = x_mask.unsqueeze(2) * x_mask.unsqueeze(-1), f32:
//   query/key/value.view(b, n_heads, k_channels, t).transpose(2, 3)   (conv1d channels-first)
//   scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(k_channels)
//   rel_logits = _matmul_with_relative_keys(query, _get_relative_embeddings(emb_rel_k, t))
//   scores = scores + _relative_position_to_absolute_position(rel_logits) / math.sqrt(k_channels)
//   scores = scores.masked_fill(mask == 0, -1e4)
//   p_attn = F.softmax(scores, dim=-1); output = torch.matmul(p_attn, value)
//   relative_weights = _absolute_position_to_relative_position(p_attn)
//   output = output + _matmul_with_relative_values(relative_weights, _get_relative_embeddings(emb_rel_v, t))
// _get_relative_embeddings pads the 2 * 4 + 1 embeddings by one on each side
// (F.pad) to the 2 * t - 1 = 11 used; the two relative shifts are the pad /
// flat view / pad / view / slice skews. The probabilities are read a second
// time, skewed, by the relative-value product: fused, they would have to be
// computed twice. And the -1e4 masked_fill over the query-by-key padding
// mask hides the whole row of a padded query, which the graph then
// averages uniformly over every key. b 2, channels 32, n_heads 2,
// k_channels 16, t 6. Must decline.

// CHECK-LABEL: func.func @nm_coqui_glow_tts_relative_position_mha_window4_rel_values_read_probs_query_key_mask_neg1e4_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the probabilities are also read by 'poot.concat' at line {{[0-9]+}}: fused, they would be computed twice
func.func @nm_coqui_glow_tts_relative_position_mha_window4_rel_values_read_probs_query_key_mask_neg1e4_f32(
    %q0: tensor<2x32x6xf32>, %k0: tensor<2x32x6xf32>, %v0: tensor<2x32x6xf32>,
    %emb_rel_k: tensor<1x9x16xf32>, %emb_rel_v: tensor<1x9x16xf32>,
    %x_mask: tensor<2x1x6xf32>) -> tensor<2x32x6xf32> {
  // [b, d, t] -> [b, n_h, t, d_k]
  %q4 = poot.reshape %q0 : tensor<2x32x6xf32> -> tensor<2x2x16x6xf32>
  %query = poot.transpose %q4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x6xf32>
  %k4 = poot.reshape %k0 : tensor<2x32x6xf32> -> tensor<2x2x16x6xf32>
  %key = poot.transpose %k4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x6xf32>
  %v4 = poot.reshape %v0 : tensor<2x32x6xf32> -> tensor<2x2x16x6xf32>
  %value = poot.transpose %v4 {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x16x6xf32>
  // scores = matmul(query, key^T) / sqrt(k_channels)
  %kt = poot.transpose %key {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %s0 = poot.matmul %query, %kt : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %s1 = poot.div %s0, %sq : tensor<2x2x6x6xf32>, tensor<f32>
  // _get_relative_embeddings(emb_rel_k, 6): F.pad(.., [0, 0, 1, 1, 0, 0]), [:, 0:11]
  %zrow = poot.constant dense<0.0> : tensor<1x1x16xf32>
  %rk = poot.concat %zrow, %emb_rel_k, %zrow {axis = 1 : i64} : tensor<1x1x16xf32>, tensor<1x9x16xf32>, tensor<1x1x16xf32>
  // _matmul_with_relative_keys: matmul(query, re.unsqueeze(0).transpose(-2, -1))
  %rk4 = poot.reshape %rk : tensor<1x11x16xf32> -> tensor<1x1x11x16xf32>
  %rkt = poot.transpose %rk4 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x11x16xf32>
  %rl = poot.matmul %query, %rkt : tensor<2x2x6x16xf32>, tensor<1x1x16x11xf32>
  // _relative_position_to_absolute_position: pad [0, 1]; view [b, h, 72]; pad [0, 5]; view [b, h, 7, 11][:, :, :6, 5:]
  %z1 = poot.constant dense<0.0> : tensor<2x2x6x1xf32>
  %rlp = poot.concat %rl, %z1 {axis = 3 : i64} : tensor<2x2x6x11xf32>, tensor<2x2x6x1xf32>
  %rlf = poot.reshape %rlp : tensor<2x2x6x12xf32> -> tensor<2x2x72xf32>
  %z5 = poot.constant dense<0.0> : tensor<2x2x5xf32>
  %rlf2 = poot.concat %rlf, %z5 {axis = 2 : i64} : tensor<2x2x72xf32>, tensor<2x2x5xf32>
  %rlv = poot.reshape %rlf2 : tensor<2x2x77xf32> -> tensor<2x2x7x11xf32>
  %rabs = poot.slice %rlv {start = array<i64: 0, 0, 0, 5>, limit = array<i64: 2, 2, 6, 11>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x7x11xf32>
  // scores_local = rel_logits / sqrt(k_channels); scores = scores + scores_local
  %sl = poot.div %rabs, %sq : tensor<2x2x6x6xf32>, tensor<f32>
  %s2 = poot.add %s1, %sl : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  // attn_mask = x_mask.unsqueeze(2) * x_mask.unsqueeze(-1); masked_fill(mask == 0, -1e4)
  %xa = poot.reshape %x_mask : tensor<2x1x6xf32> -> tensor<2x1x1x6xf32>
  %xb = poot.reshape %x_mask : tensor<2x1x6xf32> -> tensor<2x1x6x1xf32>
  %am = poot.mul %xa, %xb : tensor<2x1x1x6xf32>, tensor<2x1x6x1xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %hid = poot.compare eq, %am, %zf : tensor<2x1x6x6xf32>, tensor<f32>
  %fill = poot.constant dense<-1.000000e+04> : tensor<f32>
  %s3 = poot.select %hid, %fill, %s2 : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x2x6x6xf32>
  // p_attn = F.softmax(scores, dim=-1)
  %mx = poot.reduce_max %s3 {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %s3, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %z : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  // output = torch.matmul(p_attn, value)
  %o1 = poot.matmul %p, %value : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  // _absolute_position_to_relative_position(p_attn): pad [0, 5]; view [b, h, 66]; pad [6, 0]; view [b, h, 6, 12][:, :, :, 1:]
  %z5b = poot.constant dense<0.0> : tensor<2x2x6x5xf32>
  %pp = poot.concat %p, %z5b {axis = 3 : i64} : tensor<2x2x6x6xf32>, tensor<2x2x6x5xf32>
  %pf = poot.reshape %pp : tensor<2x2x6x11xf32> -> tensor<2x2x66xf32>
  %z6 = poot.constant dense<0.0> : tensor<2x2x6xf32>
  %pf2 = poot.concat %z6, %pf {axis = 2 : i64} : tensor<2x2x6xf32>, tensor<2x2x66xf32>
  %pv = poot.reshape %pf2 : tensor<2x2x72xf32> -> tensor<2x2x6x12xf32>
  %rw = poot.slice %pv {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 2, 2, 6, 12>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x6x12xf32>
  // _matmul_with_relative_values(relative_weights, _get_relative_embeddings(emb_rel_v, 6))
  %rv = poot.concat %zrow, %emb_rel_v, %zrow {axis = 1 : i64} : tensor<1x1x16xf32>, tensor<1x9x16xf32>, tensor<1x1x16xf32>
  %rv4 = poot.reshape %rv : tensor<1x11x16xf32> -> tensor<1x1x11x16xf32>
  %o2 = poot.matmul %rw, %rv4 : tensor<2x2x6x11xf32>, tensor<1x1x11x16xf32>
  %o = poot.add %o1, %o2 : tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>
  // output.transpose(2, 3).contiguous().view(b, d, t_t)
  %ot = poot.transpose %o {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %out = poot.reshape %ot : tensor<2x2x16x6xf32> -> tensor<2x32x6xf32>
  return %out : tensor<2x32x6xf32>
}
