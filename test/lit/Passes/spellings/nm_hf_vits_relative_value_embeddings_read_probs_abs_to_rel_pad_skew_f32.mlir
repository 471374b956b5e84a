// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, HF transformers VITS / MMS-TTS (models/vits/modeling_vits.py,
// VitsAttention.forward with _relative_position_to_absolute_position and
// _absolute_position_to_relative_position), the text encoder's
// self-attention, window_size = 4, f32. q = q_proj * scaling, heads in the
// batch [B * H, L, D]; bmm(q, k^T) plus relative key logits q . emb_rel_k^T
// skewed to absolute positions by pad / view / pad / view / slice; the
// padding mask (_expand_mask, finfo.min) added on a [B, H, L, L] view;
// softmax(dim=-1); bmm with v. Then the probabilities are read a second
// time: skewed back to relative positions (pad [0, L - 1], flatten, pad L
// zeros in front, view [.., L, 2L], drop column 0) and multiplied with
// emb_rel_v, added to the output. The output is not P . V alone, and
// fusing would compute the probabilities twice: must decline. B = 1,
// L = 5, H = 2, D = 8.

// CHECK-LABEL: func.func @nm_hf_vits_relative_value_embeddings_read_probs_abs_to_rel_pad_skew_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: {{.*}}probabilities are also read by
func.func @nm_hf_vits_relative_value_embeddings_read_probs_abs_to_rel_pad_skew_f32(
    %q_proj_out: tensor<1x5x16xf32>,
    %k_proj_out: tensor<1x5x16xf32>,
    %v_proj_out: tensor<1x5x16xf32>,
    %emb_rel_k: tensor<1x9x8xf32>,
    %emb_rel_v: tensor<1x9x8xf32>,
    %attention_mask: tensor<1x5xi64> {poot.range = array<i64: 0, 2>})
    -> tensor<1x5x16xf32> {
  // query_states = self.q_proj(hidden_states) * self.scaling; _shape(..).view(bsz * num_heads, -1, head_dim)
  %scaling = poot.constant dense<0.353553385> : tensor<f32>
  %qs = poot.mul %q_proj_out, %scaling : tensor<1x5x16xf32>, tensor<f32>
  %q4 = poot.reshape %qs : tensor<1x5x16xf32> -> tensor<1x5x2x8xf32>
  %qt = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32>
  %q = poot.reshape %qt : tensor<1x2x5x8xf32> -> tensor<2x5x8xf32>
  %k4 = poot.reshape %k_proj_out : tensor<1x5x16xf32> -> tensor<1x5x2x8xf32>
  %kt = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32>
  %k = poot.reshape %kt : tensor<1x2x5x8xf32> -> tensor<2x5x8xf32>
  %v4 = poot.reshape %v_proj_out : tensor<1x5x16xf32> -> tensor<1x5x2x8xf32>
  %vt = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x8xf32>
  %v = poot.reshape %vt : tensor<1x2x5x8xf32> -> tensor<2x5x8xf32>
  %kt1 = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x5x8xf32>
  %attn_weights = poot.matmul %q, %kt1 : tensor<2x5x8xf32>, tensor<2x8x5xf32>
  // window_size = 4: key_relative_embeddings = _get_relative_embeddings(emb_rel_k, 5) (no pad, slice [0:9])
  %ekt = poot.transpose %emb_rel_k {perm = array<i64: 0, 2, 1>} : tensor<1x9x8xf32>
  %relative_logits = poot.matmul %q, %ekt : tensor<2x5x8xf32>, tensor<1x8x9xf32>
  // _relative_position_to_absolute_position: pad [0, 1], view [BH, L * 2L], pad [0, L - 1], view [BH, L + 1, 2L - 1], [:, :L, L - 1:]
  %zcol = poot.constant dense<0.0> : tensor<2x5x1xf32>
  %rp1 = poot.concat %relative_logits, %zcol {axis = 2 : i64} : tensor<2x5x9xf32>, tensor<2x5x1xf32>
  %rflat = poot.reshape %rp1 : tensor<2x5x10xf32> -> tensor<2x50xf32>
  %ztail = poot.constant dense<0.0> : tensor<2x4xf32>
  %rflat2 = poot.concat %rflat, %ztail {axis = 1 : i64} : tensor<2x50xf32>, tensor<2x4xf32>
  %rview = poot.reshape %rflat2 : tensor<2x54xf32> -> tensor<2x6x9xf32>
  %rel_pos_bias = poot.slice %rview {start = array<i64: 0, 0, 4>, limit = array<i64: 2, 5, 9>, step = array<i64: 1, 1, 1>} : tensor<2x6x9xf32>
  %w2 = poot.add %attn_weights, %rel_pos_bias : tensor<2x5x5xf32>, tensor<2x5x5xf32>
  // _expand_mask(attention_mask): (1 - m[:, None, None, :].expand(B, 1, L, L)) masked_fill finfo.min;
  // attn_weights.view(bsz, num_heads, L, L) + attention_mask, view back
  %am4 = poot.reshape %attention_mask : tensor<1x5xi64> -> tensor<1x1x1x5xi64>
  %amb = poot.broadcast %am4 {shape = array<i64: 1, 1, 5, 5>} : tensor<1x1x1x5xi64>
  %amf = poot.convert %amb : tensor<1x1x5x5xi64> -> tensor<1x1x5x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %amf : tensor<f32>, tensor<1x1x5x5xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %invb = poot.compare ne, %inv, %zf : tensor<1x1x5x5xf32>, tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %expanded = poot.select %invb, %fmin, %inv : tensor<1x1x5x5xi1>, tensor<f32>, tensor<1x1x5x5xf32>
  %w4 = poot.reshape %w2 : tensor<2x5x5xf32> -> tensor<1x2x5x5xf32>
  %w4m = poot.add %w4, %expanded : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32>
  %w3 = poot.reshape %w4m : tensor<1x2x5x5xf32> -> tensor<2x5x5xf32>
  // softmax(dim=-1); attn_output = bmm(attn_probs, value_states)
  %m = poot.reduce_max %w3 {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %d = poot.sub %w3, %m : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %e = poot.exp %d : tensor<2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %attn_probs = poot.div %e, %z : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %attn_output = poot.matmul %attn_probs, %v : tensor<2x5x5xf32>, tensor<2x5x8xf32>
  // _absolute_position_to_relative_position(attn_probs): pad [0, L - 1], view [BH, L^2 + L(L - 1)], pad [L, 0], view [BH, L, 2L][:, :, 1:]
  %zcols = poot.constant dense<0.0> : tensor<2x5x4xf32>
  %pp = poot.concat %attn_probs, %zcols {axis = 2 : i64} : tensor<2x5x5xf32>, tensor<2x5x4xf32>
  %pflat = poot.reshape %pp : tensor<2x5x9xf32> -> tensor<2x45xf32>
  %zhead = poot.constant dense<0.0> : tensor<2x5xf32>
  %pflat2 = poot.concat %zhead, %pflat {axis = 1 : i64} : tensor<2x5xf32>, tensor<2x45xf32>
  %pview = poot.reshape %pflat2 : tensor<2x50xf32> -> tensor<2x5x10xf32>
  %relative_weights = poot.slice %pview {start = array<i64: 0, 0, 1>, limit = array<i64: 2, 5, 10>, step = array<i64: 1, 1, 1>} : tensor<2x5x10xf32>
  %rel_pos_value = poot.matmul %relative_weights, %emb_rel_v : tensor<2x5x9xf32>, tensor<1x9x8xf32>
  %attn_output2 = poot.add %attn_output, %rel_pos_value : tensor<2x5x8xf32>, tensor<2x5x8xf32>
  %o4 = poot.reshape %attn_output2 : tensor<2x5x8xf32> -> tensor<1x2x5x8xf32>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x8xf32>
  %out = poot.reshape %ot : tensor<1x5x2x8xf32> -> tensor<1x5x16xf32>
  return %out : tensor<1x5x16xf32>
}
