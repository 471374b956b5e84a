// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, Hugging Face transformers, Grounding DINO
// (models/grounding_dino/modeling_grounding_dino.py,
// GroundingDinoBiMultiHeadAttention.forward, the image-text fusion layer),
// f32: vision_query_states = vision_proj(vision_features) * scale;
// text_key_states = text_proj(text); values_vision_proj, values_text_proj;
// _shape and view to (B * heads, -1, head_dim); attn_weights = bmm(vision_q,
// text_k^T); attn_weights = attn_weights - attn_weights.max() (one max over
// the whole tensor); torch.clamp(attn_weights, min=-50000, max=50000);
// text side: attn_weights.transpose(1, 2) minus its max over dim -1,
// clamped again to +-50000, masked_fill_(vision_attention_mask, -inf),
// softmax(dim=-1), bmm with the vision values; vision side:
// attn_weights.masked_fill_(text_attention_mask, -inf), softmax(dim=-1),
// bmm with the text values; both viewed back to (B, L, embed). The masks
// are bools (True on padding) repeated over the heads. 12 vision tokens, 6
// text tokens, embed 32 in 2 heads of 16, B = 1.
//
// Both products look like attention (the text side is the same scores
// transposed: keys and queries exchanged), but the clamp at -50000 comes
// after a shift by the global max, not the row's: a row whose scores all lie
// 50000 below the largest score of any row is flattened to -50000, so its
// softmax is uniform where softmax(q . k) is not (and on the text side the
// clamp of the row-shifted scores of the clamped tensor flattens a row
// whose visible keys all sit 50000 below a masked one). Neither clamp is a
// dtype's lowest value nor provably idle, so fusing either side would be
// wrong for large scores: both must decline.

// CHECK-LABEL: func.func @nm_hf_grounding_dino_bi_attention_global_max_shift_clamp_50000_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-COUNT-2: remark: attention declined
// EXPLAIN-NOT: remark: attention fused
func.func @nm_hf_grounding_dino_bi_attention_global_max_shift_clamp_50000_f32(
    %vision: tensor<1x12x32xf32>, %text: tensor<1x6x32xf32>,
    %vision_attention_mask: tensor<1x12xi1>, %text_attention_mask: tensor<1x6xi1>,
    %vq_w: tensor<32x32xf32>, %vq_b: tensor<32xf32>, %tk_w: tensor<32x32xf32>, %tk_b: tensor<32xf32>,
    %vv_w: tensor<32x32xf32>, %vv_b: tensor<32xf32>, %tv_w: tensor<32x32xf32>, %tv_b: tensor<32xf32>)
    -> (tensor<1x12x32xf32>, tensor<1x6x32xf32>) {
  // vision_query_states = self.vision_proj(vision_features) * self.scale; _shape; view(*proj_shape)
  %vq0 = poot.matmul %vision, %vq_w : tensor<1x12x32xf32>, tensor<32x32xf32>
  %vq1 = poot.add %vq0, %vq_b : tensor<1x12x32xf32>, tensor<32xf32>
  %scale = poot.constant dense<0.25> : tensor<f32>
  %vq2 = poot.mul %vq1, %scale : tensor<1x12x32xf32>, tensor<f32>
  %vq4 = poot.reshape %vq2 : tensor<1x12x32xf32> -> tensor<1x12x2x16xf32>
  %vqt = poot.transpose %vq4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x12x2x16xf32>
  %vq = poot.reshape %vqt : tensor<1x2x12x16xf32> -> tensor<2x12x16xf32>
  // text_key_states = self.text_proj(text_features)
  %tk0 = poot.matmul %text, %tk_w : tensor<1x6x32xf32>, tensor<32x32xf32>
  %tk1 = poot.add %tk0, %tk_b : tensor<1x6x32xf32>, tensor<32xf32>
  %tk4 = poot.reshape %tk1 : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %tkt = poot.transpose %tk4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %tk = poot.reshape %tkt : tensor<1x2x6x16xf32> -> tensor<2x6x16xf32>
  // vision_value_states, text_value_states
  %vv0 = poot.matmul %vision, %vv_w : tensor<1x12x32xf32>, tensor<32x32xf32>
  %vv1 = poot.add %vv0, %vv_b : tensor<1x12x32xf32>, tensor<32xf32>
  %vv4 = poot.reshape %vv1 : tensor<1x12x32xf32> -> tensor<1x12x2x16xf32>
  %vvt = poot.transpose %vv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x12x2x16xf32>
  %vv = poot.reshape %vvt : tensor<1x2x12x16xf32> -> tensor<2x12x16xf32>
  %tv0 = poot.matmul %text, %tv_w : tensor<1x6x32xf32>, tensor<32x32xf32>
  %tv1 = poot.add %tv0, %tv_b : tensor<1x6x32xf32>, tensor<32xf32>
  %tv4 = poot.reshape %tv1 : tensor<1x6x32xf32> -> tensor<1x6x2x16xf32>
  %tvt = poot.transpose %tv4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xf32>
  %tv = poot.reshape %tvt : tensor<1x2x6x16xf32> -> tensor<2x6x16xf32>
  // attn_weights = torch.bmm(vision_query_states, text_key_states.transpose(1, 2))
  %tkT = poot.transpose %tk {perm = array<i64: 0, 2, 1>} : tensor<2x6x16xf32>
  %a0 = poot.matmul %vq, %tkT : tensor<2x12x16xf32>, tensor<2x16x6xf32>
  // attn_weights = attn_weights - attn_weights.max()
  %gm0 = poot.reduce_max %a0 {axis = 2 : i64} : tensor<2x12x6xf32>
  %gm1 = poot.reduce_max %gm0 {axis = 1 : i64} : tensor<2x12xf32>
  %gmax = poot.reduce_max %gm1 {axis = 0 : i64} : tensor<2xf32>
  %a1 = poot.sub %a0, %gmax : tensor<2x12x6xf32>, tensor<f32>
  // torch.clamp(attn_weights, min=-50000, max=50000)
  %lo = poot.constant dense<-5.0E+4> : tensor<f32>
  %hi = poot.constant dense<5.0E+4> : tensor<f32>
  %a2 = poot.max %a1, %lo : tensor<2x12x6xf32>, tensor<f32>
  %a = poot.min %a2, %hi : tensor<2x12x6xf32>, tensor<f32>
  // text_attn_weights = attn_weights_transposed - torch.max(attn_weights_transposed, dim=-1, keepdim=True)[0]
  %aT = poot.transpose %a {perm = array<i64: 0, 2, 1>} : tensor<2x12x6xf32>
  %tmx = poot.reduce_max %aT {axis = 2 : i64, keepdim} : tensor<2x6x12xf32>
  %t1 = poot.sub %aT, %tmx : tensor<2x6x12xf32>, tensor<2x6x1xf32>
  %t2 = poot.max %t1, %lo : tensor<2x6x12xf32>, tensor<f32>
  %t3 = poot.min %t2, %hi : tensor<2x6x12xf32>, tensor<f32>
  // text_attn_weights.masked_fill_(vision_attention_mask[:, None, None, :].repeat(1, heads, 1, 1).flatten(0, 1), -inf)
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %vm4 = poot.reshape %vision_attention_mask : tensor<1x12xi1> -> tensor<1x1x1x12xi1>
  %vmr = poot.broadcast %vm4 {shape = array<i64: 1, 2, 1, 12>} : tensor<1x1x1x12xi1>
  %vm = poot.reshape %vmr : tensor<1x2x1x12xi1> -> tensor<2x1x12xi1>
  %t4 = poot.select %vm, %ninf, %t3 : tensor<2x1x12xi1>, tensor<f32>, tensor<2x6x12xf32>
  // text_attn_weights.softmax(dim=-1)
  %tm = poot.reduce_max %t4 {axis = 2 : i64, keepdim} : tensor<2x6x12xf32>
  %td = poot.sub %t4, %tm : tensor<2x6x12xf32>, tensor<2x6x1xf32>
  %te = poot.exp %td : tensor<2x6x12xf32>
  %tz = poot.reduce_sum %te {axis = 2 : i64, keepdim} : tensor<2x6x12xf32>
  %tp = poot.div %te, %tz : tensor<2x6x12xf32>, tensor<2x6x1xf32>
  // attn_weights.masked_fill_(text_attention_mask[...].repeat(1, heads, 1, 1).flatten(0, 1), -inf); softmax(dim=-1)
  %tm4 = poot.reshape %text_attention_mask : tensor<1x6xi1> -> tensor<1x1x1x6xi1>
  %tmr = poot.broadcast %tm4 {shape = array<i64: 1, 2, 1, 6>} : tensor<1x1x1x6xi1>
  %tmk = poot.reshape %tmr : tensor<1x2x1x6xi1> -> tensor<2x1x6xi1>
  %v1 = poot.select %tmk, %ninf, %a : tensor<2x1x6xi1>, tensor<f32>, tensor<2x12x6xf32>
  %vm2 = poot.reduce_max %v1 {axis = 2 : i64, keepdim} : tensor<2x12x6xf32>
  %vd = poot.sub %v1, %vm2 : tensor<2x12x6xf32>, tensor<2x12x1xf32>
  %ve = poot.exp %vd : tensor<2x12x6xf32>
  %vz = poot.reduce_sum %ve {axis = 2 : i64, keepdim} : tensor<2x12x6xf32>
  %vp = poot.div %ve, %vz : tensor<2x12x6xf32>, tensor<2x12x1xf32>
  // vision_attn_output = bmm(vision_attn_probs, text_value_states); text_attn_output = bmm(text_attn_probs, vision_value_states)
  %vo = poot.matmul %vp, %tv : tensor<2x12x6xf32>, tensor<2x6x16xf32>
  %to = poot.matmul %tp, %vv : tensor<2x6x12xf32>, tensor<2x12x16xf32>
  // view(B, heads, L, head_dim).transpose(1, 2).reshape(B, L, embed)
  %vo4 = poot.reshape %vo : tensor<2x12x16xf32> -> tensor<1x2x12x16xf32>
  %vot = poot.transpose %vo4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x12x16xf32>
  %vout = poot.reshape %vot : tensor<1x12x2x16xf32> -> tensor<1x12x32xf32>
  %to4 = poot.reshape %to : tensor<2x6x16xf32> -> tensor<1x2x6x16xf32>
  %tot = poot.transpose %to4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x16xf32>
  %tout = poot.reshape %tot : tensor<1x6x2x16xf32> -> tensor<1x6x32xf32>
  return %vout, %tout : tensor<1x12x32xf32>, tensor<1x6x32xf32>
}
