// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers DETR (models/detr/modeling_detr.py, DetrAttention.forward
// as DetrDecoderLayer.encoder_attn, the decoder's cross-attention), f32:
// position embeddings go into the queries and keys only: hidden_states +
// query_position_embeddings -> q_proj(...) * scaling, key_value_states +
// spatial_position_embeddings -> k_proj, the original key_value_states ->
// v_proj; _shape(view(B, L, H, D).transpose(1, 2)) then view(B * H, -1, D);
// attn_weights = torch.bmm(q, k.transpose(1, 2)) over the flattened heads;
// the mask is viewed in: attn_weights.view(B, H, tgt, src) + attention_mask,
// .view(B * H, tgt, src); softmax(dim=-1); torch.bmm(probs, v); view(B, H,
// tgt, D).transpose(1, 2).reshape(B, tgt, C). The mask is DetrDecoder's
// _prepare_4d_attention_mask of the flattened boolean pixel mask:
// mask[:, None, None, :].expand(B, 1, tgt, src).to(f32), inverted = 1.0 -
// m, inverted.masked_fill(inverted.to(bool), finfo(f32).min). B = 2,
// 3 object queries, 8 pixels (a 2 x 4 feature map), d_model 32, 2 heads.

// The bmm over the flattened B * H axis is taken on the [B, H] operands it
// was merged from, so the padding mask added in that view stays
// [B, 1, tgt, src].
// CHECK-LABEL: func.func @hf_detr_decoder_cross_bmm_pos_qk_only_inverted_mask_fill_f32
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask({{.+}} : tensor<2x1x3x8xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x3x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>
// CHECK-NOT: poot.exp
// CHECK: return
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_detr_decoder_cross_bmm_pos_qk_only_inverted_mask_fill_f32(
    %hs: tensor<2x3x32xf32>, %qpos: tensor<2x3x32xf32>,
    %mem: tensor<2x8x32xf32>, %spos: tensor<2x8x32xf32>, %pmask: tensor<2x8xi1>,
    %wq: tensor<32x32xf32>, %bq: tensor<32xf32>, %wk: tensor<32x32xf32>, %bk: tensor<32xf32>,
    %wv: tensor<32x32xf32>, %bv: tensor<32xf32>) -> tensor<2x3x32xf32> {
  // _prepare_4d_attention_mask(flattened_mask, f32, tgt_len=3)
  %pm4 = poot.reshape %pmask : tensor<2x8xi1> -> tensor<2x1x1x8xi1>
  %pmb = poot.broadcast %pm4 {shape = array<i64: 2, 1, 3, 8>} : tensor<2x1x1x8xi1>
  %pmf = poot.convert %pmb : tensor<2x1x3x8xi1> -> tensor<2x1x3x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %pmf : tensor<f32>, tensor<2x1x3x8xf32>
  %invb = poot.convert %inv : tensor<2x1x3x8xf32> -> tensor<2x1x3x8xi1>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %amask = poot.select %invb, %fmin, %inv : tensor<2x1x3x8xi1>, tensor<f32>, tensor<2x1x3x8xf32>
  // with_pos_embed: queries and keys only
  %hq = poot.add %hs, %qpos : tensor<2x3x32xf32>, tensor<2x3x32xf32>
  %hk = poot.add %mem, %spos : tensor<2x8x32xf32>, tensor<2x8x32xf32>
  // query_states = self.q_proj(hidden_states) * self.scaling
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<32x32xf32>
  %q0 = poot.matmul %hq, %wqt : tensor<2x3x32xf32>, tensor<32x32xf32>
  %q1 = poot.add %q0, %bq : tensor<2x3x32xf32>, tensor<32xf32>
  %scaling = poot.constant dense<2.500000e-01> : tensor<f32>
  %q2 = poot.mul %q1, %scaling : tensor<2x3x32xf32>, tensor<f32>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<32x32xf32>
  %k0 = poot.matmul %hk, %wkt : tensor<2x8x32xf32>, tensor<32x32xf32>
  %k1 = poot.add %k0, %bk : tensor<2x8x32xf32>, tensor<32xf32>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<32x32xf32>
  %v0 = poot.matmul %mem, %wvt : tensor<2x8x32xf32>, tensor<32x32xf32>
  %v1 = poot.add %v0, %bv : tensor<2x8x32xf32>, tensor<32xf32>
  // _shape(...).view(B * H, -1, D)
  %q4 = poot.reshape %q2 : tensor<2x3x32xf32> -> tensor<2x3x2x16xf32>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x2x16xf32>
  %q = poot.reshape %qh : tensor<2x2x3x16xf32> -> tensor<4x3x16xf32>
  %k4 = poot.reshape %k1 : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %k = poot.reshape %kh : tensor<2x2x8x16xf32> -> tensor<4x8x16xf32>
  %v4 = poot.reshape %v1 : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %v = poot.reshape %vh : tensor<2x2x8x16xf32> -> tensor<4x8x16xf32>
  // attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x8x16xf32>
  %w0 = poot.matmul %q, %kt : tensor<4x3x16xf32>, tensor<4x16x8xf32>
  %w4 = poot.reshape %w0 : tensor<4x3x8xf32> -> tensor<2x2x3x8xf32>
  %w4m = poot.add %w4, %amask : tensor<2x2x3x8xf32>, tensor<2x1x3x8xf32>
  %w = poot.reshape %w4m : tensor<2x2x3x8xf32> -> tensor<4x3x8xf32>
  // nn.functional.softmax(attn_weights, dim=-1)
  %mx = poot.reduce_max %w {axis = 2 : i64, keepdim} : tensor<4x3x8xf32>
  %d = poot.sub %w, %mx : tensor<4x3x8xf32>, tensor<4x3x1xf32>
  %e = poot.exp %d : tensor<4x3x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x3x8xf32>
  %p = poot.div %e, %z : tensor<4x3x8xf32>, tensor<4x3x1xf32>
  %o = poot.matmul %p, %v : tensor<4x3x8xf32>, tensor<4x8x16xf32>
  %o4 = poot.reshape %o : tensor<4x3x16xf32> -> tensor<2x2x3x16xf32>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x3x16xf32>
  %out = poot.reshape %ot : tensor<2x3x2x16xf32> -> tensor<2x3x32xf32>
  return %out : tensor<2x3x32xf32>
}
