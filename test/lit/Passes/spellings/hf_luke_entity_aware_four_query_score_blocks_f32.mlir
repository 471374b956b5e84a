// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers LUKE (models/luke/modeling_luke.py, LukeSelfAttention
// .forward with use_entity_aware_attention): keys and values from
// cat([word_hidden, entity_hidden], 1); four query projections, w2w and
// w2e from the words, e2w and e2e from the entities (transpose_for_scores
// each); the key layer sliced into its word part [:, :, :Lw] and entity
// part [:, :, Lw:]; the four score blocks w2w_q @ k_w^T, w2e_q @ k_e^T,
// e2w_q @ k_w^T, e2e_q @ k_e^T; word_scores = cat([w2w, w2e], 3),
// entity_scores = cat([e2w, e2e], 3), scores = cat([word, entity], 2);
// / sqrt(head_dim); + the extended padding mask (1 - m[:, None, None, :])
// * finfo(f32).min; softmax; @ v. The query used depends on whether the
// key is a word or an entity: this is one attention over queries and keys
// of doubled width, q' = [q_x2w | q_x2e] per row against k' = [k * [word]
// | k * [entity]] (the four blocks are the products of the matching
// halves), with the padding as a tensor mask. B = 2, H = 4, Lw = 5,
// Le = 2, D = 16.

// Not the strongest form yet; the strongest, from the source, was:
//   poot.attention q, k, v mask(...) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// Today (sound, checked against the oracle):
// CHECK-LABEL: func.func @hf_luke_entity_aware_four_query_score_blocks_f32
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN: remark: attention declined: an add whose sides both (or neither) come from the scores{{$}}
func.func @hf_luke_entity_aware_four_query_score_blocks_f32(
    %w2w_q0: tensor<2x5x64xf32>, %w2e_q0: tensor<2x5x64xf32>,
    %e2w_q0: tensor<2x2x64xf32>, %e2e_q0: tensor<2x2x64xf32>,
    %key0: tensor<2x7x64xf32>, %value0: tensor<2x7x64xf32>,
    %attention_mask: tensor<2x7xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x7x64xf32> {
  // transpose_for_scores
  %a4 = poot.reshape %w2w_q0 : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %w2w_q = poot.transpose %a4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  %b4 = poot.reshape %w2e_q0 : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %w2e_q = poot.transpose %b4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  %c4 = poot.reshape %e2w_q0 : tensor<2x2x64xf32> -> tensor<2x2x4x16xf32>
  %e2w_q = poot.transpose %c4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x16xf32>
  %d4 = poot.reshape %e2e_q0 : tensor<2x2x64xf32> -> tensor<2x2x4x16xf32>
  %e2e_q = poot.transpose %d4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x16xf32>
  %k4 = poot.reshape %key0 : tensor<2x7x64xf32> -> tensor<2x7x4x16xf32>
  %key = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x4x16xf32>
  %v4 = poot.reshape %value0 : tensor<2x7x64xf32> -> tensor<2x7x4x16xf32>
  %value = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x7x4x16xf32>
  // key_layer[:, :, :word_size], key_layer[:, :, word_size:]
  %kw = poot.slice %key {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 4, 5, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x7x16xf32>
  %ke = poot.slice %key {start = array<i64: 0, 0, 5, 0>, limit = array<i64: 2, 4, 7, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x4x7x16xf32>
  %kwt = poot.transpose %kw {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x16xf32>
  %ket = poot.transpose %ke {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x2x16xf32>
  %w2w = poot.matmul %w2w_q, %kwt : tensor<2x4x5x16xf32>, tensor<2x4x16x5xf32>
  %w2e = poot.matmul %w2e_q, %ket : tensor<2x4x5x16xf32>, tensor<2x4x16x2xf32>
  %e2w = poot.matmul %e2w_q, %kwt : tensor<2x4x2x16xf32>, tensor<2x4x16x5xf32>
  %e2e = poot.matmul %e2e_q, %ket : tensor<2x4x2x16xf32>, tensor<2x4x16x2xf32>
  %ws = poot.concat %w2w, %w2e {axis = 3 : i64} : tensor<2x4x5x5xf32>, tensor<2x4x5x2xf32>
  %es = poot.concat %e2w, %e2e {axis = 3 : i64} : tensor<2x4x2x5xf32>, tensor<2x4x2x2xf32>
  %sc0 = poot.concat %ws, %es {axis = 2 : i64} : tensor<2x4x5x7xf32>, tensor<2x4x2x7xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %sc1 = poot.div %sc0, %sq : tensor<2x4x7x7xf32>, tensor<f32>
  // extended attention mask
  %am4 = poot.reshape %attention_mask : tensor<2x7xi64> -> tensor<2x1x1x7xi64>
  %amf = poot.convert %am4 : tensor<2x1x1x7xi64> -> tensor<2x1x1x7xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %amf : tensor<f32>, tensor<2x1x1x7xf32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %ext = poot.mul %inv, %fmin : tensor<2x1x1x7xf32>, tensor<f32>
  %sc = poot.add %sc1, %ext : tensor<2x4x7x7xf32>, tensor<2x1x1x7xf32>
  %mx = poot.reduce_max %sc {axis = 3 : i64, keepdim} : tensor<2x4x7x7xf32>
  %d = poot.sub %sc, %mx : tensor<2x4x7x7xf32>, tensor<2x4x7x1xf32>
  %e = poot.exp %d : tensor<2x4x7x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x7x7xf32>
  %p = poot.div %e, %z : tensor<2x4x7x7xf32>, tensor<2x4x7x1xf32>
  %c0 = poot.matmul %p, %value : tensor<2x4x7x7xf32>, tensor<2x4x7x16xf32>
  %c1 = poot.transpose %c0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x7x16xf32>
  %c = poot.reshape %c1 : tensor<2x7x4x16xf32> -> tensor<2x7x64xf32>
  return %c : tensor<2x7x64xf32>
}
