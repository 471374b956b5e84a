// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Hugging Face transformers, XLNet (models/xlnet/modeling_xlnet.py), f32,
// the first step of XLNetLMHeadModel.generate: prepare_inputs_for_generation
// appends a dummy token, builds perm_mask = zeros(B, L, L) with
// perm_mask[:, :, -1] = 1 (no token sees the dummy) and target_mapping =
// zeros(B, 1, L) with target_mapping[:, 0, -1] = 1 (predict the dummy).
// XLNetModel.forward (attn_type "bi", no mems): perm_mask.permute(1, 2, 0),
// target_mapping.permute(1, 2, 0); data_mask = perm_mask; attn_mask =
// (data_mask[:, :, :, None] > 0).float(); non_tgt_mask = ((attn_mask +
// -eye(L)[:, :, None, None]) > 0).float() (the content stream may see its
// own position); output_g = mask_emb.expand(1, B, -1);
// relative_positional_encoding: inv_freq = 1 / 10000 ** (arange(0, d, 2) /
// d), pos_seq = arange(L, -L, -1), cat(sin, cos) of the outer product,
// expanded over the batch. XLNetRelativeAttention.forward (two-stream):
// k_head_h, v_head_h, k_head_r, q_head_h, q_head_g by einsum("ibh,hnd->ibnd");
// q_head_g = einsum("mbnd,mlb->lbnd", q_head_g, target_mapping).
// rel_attn_core, per stream: ac = einsum("ibnd,jbnd->bnij", q + r_w_bias,
// k_head_h); bd = einsum("ibnd,jbnd->bnij", q + r_r_bias, k_head_r);
// rel_shift_bnij (reshape to [b, n, rlen, L], drop the first row, reshape
// to [b, n, L, rlen - 1], index_select the first klen columns); ef = 0
// (no token types); attn_score = (ac + bd + ef) * scale; attn_score -
// 1e30 * einsum("ijbn->bnij", attn_mask); softmax(dim=3); attn_vec =
// einsum("bnij,jbnd->ibnd", attn_prob, v_head_h); the query stream's is
// mapped back by einsum("lbnd,mlb->mbnd", ., target_mapping). torch.einsum
// runs each contraction as a bmm over the flattened batch dims. Both
// streams' attn_vec are returned (post_attention left out). L = 6, B = 2,
// d_model 32, 2 heads of 16.
//
// Strongest form: two attentions over the same keys and values, queries q +
// r_w_bias (h stream) and the mapped mask-embedding queries + r_w_bias
// (g stream), each with a tensor mask: the relative term bd, shifted and
// scaled, is a bias the fused op adds as its mask together with the 1e30
// penalty (-1e30 against scores of order 1 hides a key exactly, and every
// row keeps five keys). h stream: key 5 hidden from rows 0..4 only; g
// stream: key 5 hidden from every row. Scale 1/4, n_rep 1.

// CHECK-LABEL: func.func @hf_xlnet_two_stream_generate_perm_mask_target_mapping_rel_shift_f32
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32> -> tensor<2x2x6x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64} : tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32> -> tensor<2x2x6x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: return
// EXPLAIN-COUNT-2: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @hf_xlnet_two_stream_generate_perm_mask_target_mapping_rel_shift_f32(
    %inputs_embeds: tensor<2x6x32xf32>, %mask_emb: tensor<1x1x32xf32>,
    %wq: tensor<32x2x16xf32>, %wk: tensor<32x2x16xf32>, %wv: tensor<32x2x16xf32>,
    %wr: tensor<32x2x16xf32>, %r_w_bias: tensor<2x16xf32>, %r_r_bias: tensor<2x16xf32>)
    -> (tensor<6x2x2x16xf32>, tensor<1x2x2x16xf32>) {
  // prepare_inputs_for_generation: perm_mask and target_mapping
  %perm_mask = poot.constant dense<[[[0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]]> : tensor<2x6x6xf32>
  %target_mapping = poot.constant dense<[[[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]], [[0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]]> : tensor<2x1x6xf32>
  // XLNetModel.forward: batch to the end
  %h = poot.transpose %inputs_embeds {perm = array<i64: 1, 0, 2>} : tensor<2x6x32xf32>
  %pm = poot.transpose %perm_mask {perm = array<i64: 1, 2, 0>} : tensor<2x6x6xf32>
  %tm = poot.transpose %target_mapping {perm = array<i64: 1, 2, 0>} : tensor<2x1x6xf32>
  // attn_mask = (data_mask[:, :, :, None] > 0).to(float)
  %pm4 = poot.reshape %pm : tensor<6x6x2xf32> -> tensor<6x6x2x1xf32>
  %f0 = poot.constant dense<0.0> : tensor<f32>
  %gt0 = poot.compare gt, %pm4, %f0 : tensor<6x6x2x1xf32>, tensor<f32>
  %attn_mask = poot.convert %gt0 : tensor<6x6x2x1xi1> -> tensor<6x6x2x1xf32>
  // non_tgt_mask = ((attn_mask + (-eye(qlen))[:, :, None, None]) > 0).to(attn_mask)
  %eye = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]> : tensor<6x6xf32>
  %neye = poot.neg %eye : tensor<6x6xf32>
  %neye4 = poot.reshape %neye : tensor<6x6xf32> -> tensor<6x6x1x1xf32>
  %ntsum = poot.add %attn_mask, %neye4 : tensor<6x6x2x1xf32>, tensor<6x6x1x1xf32>
  %ntgt = poot.compare gt, %ntsum, %f0 : tensor<6x6x2x1xf32>, tensor<f32>
  %non_tgt_mask = poot.convert %ntgt : tensor<6x6x2x1xi1> -> tensor<6x6x2x1xf32>
  // word_emb_q = self.mask_emb.expand(target_mapping.shape[0], bsz, -1)
  %g = poot.broadcast %mask_emb {shape = array<i64: 1, 2, 32>} : tensor<1x1x32xf32>
  // relative_positional_encoding(qlen=6, klen=6, bsz=2), attn_type "bi"
  %fi = poot.iota {dim = 0 : i64} : tensor<16xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %fs = poot.mul %fi, %two : tensor<16xi64>, tensor<i64>
  %freq_seq = poot.convert %fs : tensor<16xi64> -> tensor<16xf32>
  %dm = poot.constant dense<32.0> : tensor<f32>
  %fe = poot.div %freq_seq, %dm : tensor<16xf32>, tensor<f32>
  %base = poot.constant dense<10000.0> : tensor<f32>
  %pw = poot.pow %base, %fe : tensor<f32>, tensor<16xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %inv_freq = poot.div %onef, %pw : tensor<f32>, tensor<16xf32>
  %pi = poot.iota {dim = 0 : i64} : tensor<12xi64>
  %six = poot.constant dense<6> : tensor<i64>
  %ps = poot.sub %six, %pi : tensor<i64>, tensor<12xi64>
  %pos_seq = poot.convert %ps : tensor<12xi64> -> tensor<12xf32>
  %pos2 = poot.reshape %pos_seq : tensor<12xf32> -> tensor<12x1xf32>
  %inv2 = poot.reshape %inv_freq : tensor<16xf32> -> tensor<1x16xf32>
  %sinusoid = poot.mul %pos2, %inv2 : tensor<12x1xf32>, tensor<1x16xf32>
  %psin = poot.sin %sinusoid : tensor<12x16xf32>
  %pcos = poot.cos %sinusoid : tensor<12x16xf32>
  %pe = poot.concat %psin, %pcos {axis = 1 : i64} : tensor<12x16xf32>, tensor<12x16xf32>
  %pe3 = poot.reshape %pe : tensor<12x32xf32> -> tensor<12x1x32xf32>
  %r = poot.broadcast %pe3 {shape = array<i64: 12, 2, 32>} : tensor<12x1x32xf32>
  // einsum("ibh,hnd->ibnd", ., W): one matmul over the flattened i, b
  %wk2 = poot.reshape %wk : tensor<32x2x16xf32> -> tensor<32x32xf32>
  %wv2 = poot.reshape %wv : tensor<32x2x16xf32> -> tensor<32x32xf32>
  %wr2 = poot.reshape %wr : tensor<32x2x16xf32> -> tensor<32x32xf32>
  %wq2 = poot.reshape %wq : tensor<32x2x16xf32> -> tensor<32x32xf32>
  %h2 = poot.reshape %h : tensor<6x2x32xf32> -> tensor<12x32xf32>
  %kh2 = poot.matmul %h2, %wk2 : tensor<12x32xf32>, tensor<32x32xf32>
  %k_head_h = poot.reshape %kh2 : tensor<12x32xf32> -> tensor<6x2x2x16xf32>
  %vh2 = poot.matmul %h2, %wv2 : tensor<12x32xf32>, tensor<32x32xf32>
  %v_head_h = poot.reshape %vh2 : tensor<12x32xf32> -> tensor<6x2x2x16xf32>
  %r2 = poot.reshape %r : tensor<12x2x32xf32> -> tensor<24x32xf32>
  %kr2 = poot.matmul %r2, %wr2 : tensor<24x32xf32>, tensor<32x32xf32>
  %k_head_r = poot.reshape %kr2 : tensor<24x32xf32> -> tensor<12x2x2x16xf32>
  %qh2 = poot.matmul %h2, %wq2 : tensor<12x32xf32>, tensor<32x32xf32>
  %q_head_h = poot.reshape %qh2 : tensor<12x32xf32> -> tensor<6x2x2x16xf32>
  %g2 = poot.reshape %g : tensor<1x2x32xf32> -> tensor<2x32xf32>
  %qg2 = poot.matmul %g2, %wq2 : tensor<2x32xf32>, tensor<32x32xf32>
  %qg0 = poot.reshape %qg2 : tensor<2x32xf32> -> tensor<1x2x2x16xf32>
  // q_head_g = einsum("mbnd,mlb->lbnd", q_head_g, target_mapping): bmm over b
  %tmb = poot.transpose %tm {perm = array<i64: 2, 1, 0>} : tensor<1x6x2xf32>
  %qgb0 = poot.transpose %qg0 {perm = array<i64: 1, 0, 2, 3>} : tensor<1x2x2x16xf32>
  %qgb = poot.reshape %qgb0 : tensor<2x1x2x16xf32> -> tensor<2x1x32xf32>
  %qgm = poot.matmul %tmb, %qgb : tensor<2x6x1xf32>, tensor<2x1x32xf32>
  %qgm4 = poot.reshape %qgm : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %q_head_g = poot.transpose %qgm4 {perm = array<i64: 1, 0, 2, 3>} : tensor<2x6x2x16xf32>
  // shared operands of rel_attn_core: k_head_h as [b*n, d, j], k_head_r as [b*n, d, rlen], v as [b*n, j, d]
  %kb0 = poot.transpose %k_head_h {perm = array<i64: 1, 2, 3, 0>} : tensor<6x2x2x16xf32>
  %kb = poot.reshape %kb0 : tensor<2x2x16x6xf32> -> tensor<4x16x6xf32>
  %krb0 = poot.transpose %k_head_r {perm = array<i64: 1, 2, 3, 0>} : tensor<12x2x2x16xf32>
  %krb = poot.reshape %krb0 : tensor<2x2x16x12xf32> -> tensor<4x16x12xf32>
  %vb0 = poot.transpose %v_head_h {perm = array<i64: 1, 2, 0, 3>} : tensor<6x2x2x16xf32>
  %vb = poot.reshape %vb0 : tensor<2x2x6x16xf32> -> tensor<4x6x16xf32>
  %sel = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %zero_i = poot.constant dense<0.0> : tensor<f32>
  %scale = poot.constant dense<0.25> : tensor<f32>
  %big = poot.constant dense<1.0E+30> : tensor<f32>
  // ---- h stream: rel_attn_core(q_head_h, ..., attn_mask=non_tgt_mask)
  %hqw = poot.add %q_head_h, %r_w_bias : tensor<6x2x2x16xf32>, tensor<2x16xf32>
  %hqw0 = poot.transpose %hqw {perm = array<i64: 1, 2, 0, 3>} : tensor<6x2x2x16xf32>
  %hqwb = poot.reshape %hqw0 : tensor<2x2x6x16xf32> -> tensor<4x6x16xf32>
  %hac0 = poot.matmul %hqwb, %kb : tensor<4x6x16xf32>, tensor<4x16x6xf32>
  %hac = poot.reshape %hac0 : tensor<4x6x6xf32> -> tensor<2x2x6x6xf32>
  %hqr = poot.add %q_head_h, %r_r_bias : tensor<6x2x2x16xf32>, tensor<2x16xf32>
  %hqr0 = poot.transpose %hqr {perm = array<i64: 1, 2, 0, 3>} : tensor<6x2x2x16xf32>
  %hqrb = poot.reshape %hqr0 : tensor<2x2x6x16xf32> -> tensor<4x6x16xf32>
  %hbd0 = poot.matmul %hqrb, %krb : tensor<4x6x16xf32>, tensor<4x16x12xf32>
  %hbd = poot.reshape %hbd0 : tensor<4x6x12xf32> -> tensor<2x2x6x12xf32>
  // rel_shift_bnij(bd, klen=6)
  %hbs1 = poot.reshape %hbd : tensor<2x2x6x12xf32> -> tensor<2x2x12x6xf32>
  %hbs2 = poot.slice %hbs1 {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 2, 2, 12, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x12x6xf32>
  %hbs3 = poot.reshape %hbs2 : tensor<2x2x11x6xf32> -> tensor<2x2x6x11xf32>
  %hbs = poot.gather %hbs3[%sel] {axis = 3 : i64} : tensor<2x2x6x11xf32>, tensor<6xi64>
  // attn_score = (ac + bd + ef) * self.scale, ef = 0
  %hsum = poot.add %hac, %hbs : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %hsum0 = poot.add %hsum, %zero_i : tensor<2x2x6x6xf32>, tensor<f32>
  %hsc = poot.mul %hsum0, %scale : tensor<2x2x6x6xf32>, tensor<f32>
  // attn_score - 1e30 * torch.einsum("ijbn->bnij", attn_mask)
  %hm = poot.transpose %non_tgt_mask {perm = array<i64: 2, 3, 0, 1>} : tensor<6x6x2x1xf32>
  %hpen = poot.mul %hm, %big : tensor<2x1x6x6xf32>, tensor<f32>
  %hx = poot.sub %hsc, %hpen : tensor<2x2x6x6xf32>, tensor<2x1x6x6xf32>
  // softmax(dim=3)
  %hmx = poot.reduce_max %hx {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %hd = poot.sub %hx, %hmx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %he = poot.exp %hd : tensor<2x2x6x6xf32>
  %hz = poot.reduce_sum %he {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %hp = poot.div %he, %hz : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  // attn_vec = einsum("bnij,jbnd->ibnd", attn_prob, v_head_h)
  %hpb = poot.reshape %hp : tensor<2x2x6x6xf32> -> tensor<4x6x6xf32>
  %hav0 = poot.matmul %hpb, %vb : tensor<4x6x6xf32>, tensor<4x6x16xf32>
  %hav1 = poot.reshape %hav0 : tensor<4x6x16xf32> -> tensor<2x2x6x16xf32>
  %attn_vec_h = poot.transpose %hav1 {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x6x16xf32>
  // ---- g stream: rel_attn_core(q_head_g, ..., attn_mask=attn_mask)
  %gqw = poot.add %q_head_g, %r_w_bias : tensor<6x2x2x16xf32>, tensor<2x16xf32>
  %gqw0 = poot.transpose %gqw {perm = array<i64: 1, 2, 0, 3>} : tensor<6x2x2x16xf32>
  %gqwb = poot.reshape %gqw0 : tensor<2x2x6x16xf32> -> tensor<4x6x16xf32>
  %gac0 = poot.matmul %gqwb, %kb : tensor<4x6x16xf32>, tensor<4x16x6xf32>
  %gac = poot.reshape %gac0 : tensor<4x6x6xf32> -> tensor<2x2x6x6xf32>
  %gqr = poot.add %q_head_g, %r_r_bias : tensor<6x2x2x16xf32>, tensor<2x16xf32>
  %gqr0 = poot.transpose %gqr {perm = array<i64: 1, 2, 0, 3>} : tensor<6x2x2x16xf32>
  %gqrb = poot.reshape %gqr0 : tensor<2x2x6x16xf32> -> tensor<4x6x16xf32>
  %gbd0 = poot.matmul %gqrb, %krb : tensor<4x6x16xf32>, tensor<4x16x12xf32>
  %gbd = poot.reshape %gbd0 : tensor<4x6x12xf32> -> tensor<2x2x6x12xf32>
  %gbs1 = poot.reshape %gbd : tensor<2x2x6x12xf32> -> tensor<2x2x12x6xf32>
  %gbs2 = poot.slice %gbs1 {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 2, 2, 12, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x12x6xf32>
  %gbs3 = poot.reshape %gbs2 : tensor<2x2x11x6xf32> -> tensor<2x2x6x11xf32>
  %gbs = poot.gather %gbs3[%sel] {axis = 3 : i64} : tensor<2x2x6x11xf32>, tensor<6xi64>
  %gsum = poot.add %gac, %gbs : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %gsum0 = poot.add %gsum, %zero_i : tensor<2x2x6x6xf32>, tensor<f32>
  %gsc = poot.mul %gsum0, %scale : tensor<2x2x6x6xf32>, tensor<f32>
  %gm = poot.transpose %attn_mask {perm = array<i64: 2, 3, 0, 1>} : tensor<6x6x2x1xf32>
  %gpen = poot.mul %gm, %big : tensor<2x1x6x6xf32>, tensor<f32>
  %gx = poot.sub %gsc, %gpen : tensor<2x2x6x6xf32>, tensor<2x1x6x6xf32>
  %gmx = poot.reduce_max %gx {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %gd = poot.sub %gx, %gmx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %ge = poot.exp %gd : tensor<2x2x6x6xf32>
  %gz = poot.reduce_sum %ge {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %gp = poot.div %ge, %gz : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %gpb = poot.reshape %gp : tensor<2x2x6x6xf32> -> tensor<4x6x6xf32>
  %gav0 = poot.matmul %gpb, %vb : tensor<4x6x6xf32>, tensor<4x6x16xf32>
  %gav1 = poot.reshape %gav0 : tensor<4x6x16xf32> -> tensor<2x2x6x16xf32>
  %gav = poot.transpose %gav1 {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x6x16xf32>
  // attn_vec_g = einsum("lbnd,mlb->mbnd", attn_vec_g, target_mapping): bmm over b
  %tmm = poot.transpose %tm {perm = array<i64: 2, 0, 1>} : tensor<1x6x2xf32>
  %gavb0 = poot.transpose %gav {perm = array<i64: 1, 0, 2, 3>} : tensor<6x2x2x16xf32>
  %gavb = poot.reshape %gavb0 : tensor<2x6x2x16xf32> -> tensor<2x6x32xf32>
  %gvm = poot.matmul %tmm, %gavb : tensor<2x1x6xf32>, tensor<2x6x32xf32>
  %gvm4 = poot.reshape %gvm : tensor<2x1x32xf32> -> tensor<2x1x2x16xf32>
  %attn_vec_g = poot.transpose %gvm4 {perm = array<i64: 1, 0, 2, 3>} : tensor<2x1x2x16xf32>
  return %attn_vec_h, %attn_vec_g : tensor<6x2x2x16xf32>, tensor<1x2x2x16xf32>
}
