// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers Wav2Vec2-Conformer (models/wav2vec2_conformer/
// modeling_wav2vec2_conformer.py, Wav2Vec2ConformerSelfAttention.forward
// with position_embeddings_type = "relative" and
// _apply_relative_embeddings, the Transformer-XL section 3.3 form): q, k,
// v viewed [B, T, H, d_k] and transposed; the projected relative position
// embeddings [1, 2T-1, E] viewed per head and transposed to [1, H, d_k,
// 2T-1]; q_with_bias_u = (q + pos_bias_u), q_with_bias_v = (q +
// pos_bias_v) (through transpose(1, 2) and back); scores_ac =
// q_u @ k^T; scores_bd = q_v @ pos; the relative shift: cat a zero
// column, view [B, H, 2T, T], drop the first row, view_as [B, H, T, 2T-1],
// keep the first T columns; (ac + bd) / sqrt(d_k); softmax; @ v. The bd
// term is a bias per batch, head and cell computed from q_v (not from
// the keys), so this is attention of q_u against k with that bias as a
// tensor mask. No padding (attention_mask None). B = 1, H = 4, T = 6,
// d_k = 16.

// CHECK-LABEL: func.func @hf_wav2vec2_conformer_rel_pos_shift_bias_uv_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_wav2vec2_conformer_rel_pos_shift_bias_uv_f32(
    %q0: tensor<1x6x4x16xf32>, %k0: tensor<1x6x4x16xf32>, %v0: tensor<1x6x4x16xf32>,
    %pos0: tensor<1x11x64xf32>, %pos_bias_u: tensor<4x16xf32>, %pos_bias_v: tensor<4x16xf32>) -> tensor<1x6x64xf32> {
  %q = poot.transpose %q0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  %k = poot.transpose %k0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  %v = poot.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  // 1. project positional embeddings => (batch, head, d_k, 2*time1-1)
  %p4 = poot.reshape %pos0 : tensor<1x11x64xf32> -> tensor<1x11x4x16xf32>
  %p5 = poot.transpose %p4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x11x4x16xf32>
  %pos = poot.transpose %p5 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x11x16xf32>
  // 2. add bias to query
  %qt = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xf32>
  %qu0 = poot.add %qt, %pos_bias_u : tensor<1x6x4x16xf32>, tensor<4x16xf32>
  %qu = poot.transpose %qu0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  %qv0 = poot.add %qt, %pos_bias_v : tensor<1x6x4x16xf32>, tensor<4x16xf32>
  %qv = poot.transpose %qv0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xf32>
  // 3. matrix a and c
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xf32>
  %ac = poot.matmul %qu, %kt : tensor<1x4x6x16xf32>, tensor<1x4x16x6xf32>
  // 4. matrix b and d
  %bd0 = poot.matmul %qv, %pos : tensor<1x4x6x16xf32>, tensor<1x4x16x11xf32>
  // 5. shift matrix b and d
  %zp = poot.constant dense<0.0> : tensor<1x4x6x1xf32>
  %bdp = poot.concat %zp, %bd0 {axis = 3 : i64} : tensor<1x4x6x1xf32>, tensor<1x4x6x11xf32>
  %bdv = poot.reshape %bdp : tensor<1x4x6x12xf32> -> tensor<1x4x12x6xf32>
  %bds = poot.slice %bdv {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 1, 4, 12, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x12x6xf32>
  %bdw = poot.reshape %bds : tensor<1x4x11x6xf32> -> tensor<1x4x6x11xf32>
  %bd = poot.slice %bdw {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x6x11xf32>
  // 6. sum matrices
  %sum = poot.add %ac, %bd : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %scores = poot.div %sum, %sq : tensor<1x4x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %scores {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %scores, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %h0 = poot.matmul %p, %v : tensor<1x4x6x6xf32>, tensor<1x4x6x16xf32>
  %h1 = poot.transpose %h0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xf32>
  %h = poot.reshape %h1 : tensor<1x6x4x16xf32> -> tensor<1x6x64xf32>
  return %h : tensor<1x6x64xf32>
}
