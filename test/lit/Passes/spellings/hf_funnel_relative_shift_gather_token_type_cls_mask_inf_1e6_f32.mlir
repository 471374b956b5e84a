// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Funnel Transformer (models/funnel/modeling_funnel.py,
// FunnelRelMultiheadAttention.forward, block 0, attention_type
// "relative_shift", separate_cls=True): q_head = q_head * scale and
// r_w_bias * scale, so the content score is einsum("bind,bjnd->bnij",
// q_head + r_w_bias * scale, k_head); relative_positional_attention:
// r_head = einsum("td,dnh->tnh", r, r_kernel), einsum("binh,tnh->bnit",
// q_head + r_r_bias * scale, r_head), _relative_shift_gather (view
// [B, H, 2T, T], drop shift = 1 row, view [B, H, T, 2T - 1], keep T
// columns), times cls_mask (pad(ones(T-1, T-1), (1, 0, 1, 0)));
// relative_token_type_attention: einsum("bind,snd->bnis", q_head +
// r_s_bias * scale, seg_embed), split into diff / same, torch.where(
// token_type_mat, same, diff) with token_type_mat = (ids[:, :, None] ==
// ids[:, None]) | cls_ids[:, :, None] | cls_ids[:, None] (cls type id 2),
// times cls_mask; attn_score = content + positional + token_type;
// .float(); attn_score - INF * (1 - attention_mask[:, None, None].float())
// with INF = 1e6 (attention_mask type_as'd to float by FunnelEncoder);
// softmax(dim=-1, dtype=f32); einsum("bnij,bjnd->bind", attn_prob, v_head).
// Every einsum is lowered as torch.einsum does (bmm over permuted
// operands). The two extra score terms are biases computed from q alone
// and the padding may hide a whole row, so the scores' extra terms and the
// -1e6 fill stay one additive tensor mask. B = 2, T = 6, n_head = 2,
// d_head = 16, d_model = 32.

// CHECK-LABEL: func.func @hf_funnel_relative_shift_gather_token_type_cls_mask_inf_1e6_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 1.000000e+00 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 1, tensor mask
func.func @hf_funnel_relative_shift_gather_token_type_cls_mask_inf_1e6_f32(
    %qp: tensor<2x6x32xf32>, %kp: tensor<2x6x32xf32>, %vp: tensor<2x6x32xf32>,
    %r: tensor<12x32xf32>, %r_kernel: tensor<32x2x16xf32>,
    %r_w_bias: tensor<2x16xf32>, %r_r_bias: tensor<2x16xf32>, %r_s_bias: tensor<2x16xf32>,
    %seg_embed: tensor<2x2x16xf32>,
    %token_type_ids: tensor<2x6xi64> {poot.range = array<i64: 0, 3>},
    %attention_mask: tensor<2x6xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x6x32xf32> {
  %scale = poot.constant dense<0.25> : tensor<f32>
  // q_head / k_head / v_head viewed [B, T, n_head, d_head]; q_head = q_head * self.scale
  %q0 = poot.reshape %qp : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %k = poot.reshape %kp : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %v = poot.reshape %vp : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %q = poot.mul %q0, %scale : tensor<2x6x2x16xf32>, tensor<f32>
  // content_score = einsum("bind,bjnd->bnij", q_head + r_w_bias * scale, k_head)
  %rwb = poot.mul %r_w_bias, %scale : tensor<2x16xf32>, tensor<f32>
  %qw = poot.add %q, %rwb : tensor<2x6x2x16xf32>, tensor<2x16xf32>
  %cl = poot.transpose %qw {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %cr = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x6x2x16xf32>
  %content = poot.matmul %cl, %cr : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  // cls_mask = pad(ones([T - 1, T - 1]), (1, 0, 1, 0))
  %cls_mask = poot.constant dense<[[0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0], [0.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<6x6xf32>
  // relative_positional_attention (relative_shift)
  %rrb = poot.mul %r_r_bias, %scale : tensor<2x16xf32>, tensor<f32>
  %wr = poot.reshape %r_kernel : tensor<32x2x16xf32> -> tensor<32x32xf32>
  %rh0 = poot.matmul %r, %wr : tensor<12x32xf32>, tensor<32x32xf32>
  %r_head = poot.reshape %rh0 : tensor<12x32xf32> -> tensor<12x2x16xf32>
  %qr = poot.add %q, %rrb : tensor<2x6x2x16xf32>, tensor<2x16xf32>
  %pl0 = poot.transpose %qr {perm = array<i64: 2, 0, 1, 3>} : tensor<2x6x2x16xf32>
  %pl = poot.reshape %pl0 : tensor<2x2x6x16xf32> -> tensor<2x12x16xf32>
  %pr = poot.transpose %r_head {perm = array<i64: 1, 2, 0>} : tensor<12x2x16xf32>
  %pa0 = poot.matmul %pl, %pr : tensor<2x12x16xf32>, tensor<2x16x12xf32>
  %pa1 = poot.reshape %pa0 : tensor<2x12x12xf32> -> tensor<2x2x6x12xf32>
  %pa2 = poot.transpose %pa1 {perm = array<i64: 1, 0, 2, 3>} : tensor<2x2x6x12xf32>
  // _relative_shift_gather(positional_attn, context_len=6, shift=1)
  %ps0 = poot.reshape %pa2 : tensor<2x2x6x12xf32> -> tensor<2x2x12x6xf32>
  %ps1 = poot.slice %ps0 {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 2, 2, 12, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x12x6xf32>
  %ps2 = poot.reshape %ps1 : tensor<2x2x11x6xf32> -> tensor<2x2x6x11xf32>
  %ps3 = poot.slice %ps2 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x6x11xf32>
  %positional = poot.mul %ps3, %cls_mask : tensor<2x2x6x6xf32>, tensor<6x6xf32>
  // token_type_ids_to_mat
  %ti = poot.reshape %token_type_ids : tensor<2x6xi64> -> tensor<2x6x1xi64>
  %tj = poot.reshape %token_type_ids : tensor<2x6xi64> -> tensor<2x1x6xi64>
  %same_seg = poot.compare eq, %ti, %tj : tensor<2x6x1xi64>, tensor<2x1x6xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %cls_ids = poot.compare eq, %token_type_ids, %two : tensor<2x6xi64>, tensor<i64>
  %ci = poot.reshape %cls_ids : tensor<2x6xi1> -> tensor<2x6x1xi1>
  %cj = poot.reshape %cls_ids : tensor<2x6xi1> -> tensor<2x1x6xi1>
  %cls_mat = poot.or %ci, %cj : tensor<2x6x1xi1>, tensor<2x1x6xi1>
  %tt_mat = poot.or %cls_mat, %same_seg : tensor<2x6x6xi1>, tensor<2x6x6xi1>
  // relative_token_type_attention
  %rsb = poot.mul %r_s_bias, %scale : tensor<2x16xf32>, tensor<f32>
  %qs = poot.add %q, %rsb : tensor<2x6x2x16xf32>, tensor<2x16xf32>
  %tl0 = poot.transpose %qs {perm = array<i64: 2, 0, 1, 3>} : tensor<2x6x2x16xf32>
  %tl = poot.reshape %tl0 : tensor<2x2x6x16xf32> -> tensor<2x12x16xf32>
  %tr = poot.transpose %seg_embed {perm = array<i64: 1, 2, 0>} : tensor<2x2x16xf32>
  %tb0 = poot.matmul %tl, %tr : tensor<2x12x16xf32>, tensor<2x16x2xf32>
  %tb1 = poot.reshape %tb0 : tensor<2x12x2xf32> -> tensor<2x2x6x2xf32>
  %tb = poot.transpose %tb1 {perm = array<i64: 1, 0, 2, 3>} : tensor<2x2x6x2xf32>
  %diff = poot.slice %tb {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 6, 1>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x6x2xf32>
  %same = poot.slice %tb {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 2, 2, 6, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x6x2xf32>
  %tt4 = poot.reshape %tt_mat : tensor<2x6x6xi1> -> tensor<2x1x6x6xi1>
  %ttx = poot.broadcast %tt4 {shape = array<i64: 2, 2, 6, 6>} : tensor<2x1x6x6xi1>
  %samex = poot.broadcast %same {shape = array<i64: 2, 2, 6, 6>} : tensor<2x2x6x1xf32>
  %diffx = poot.broadcast %diff {shape = array<i64: 2, 2, 6, 6>} : tensor<2x2x6x1xf32>
  %tta0 = poot.select %ttx, %samex, %diffx : tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %token_type = poot.mul %tta0, %cls_mask : tensor<2x2x6x6xf32>, tensor<6x6xf32>
  // attn_score = content_score + positional_attn + token_type_attn
  %sc1 = poot.add %content, %positional : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %sc2 = poot.add %sc1, %token_type : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  // attn_score - INF * (1 - attention_mask[:, None, None].float())
  %amf = poot.convert %attention_mask : tensor<2x6xi64> -> tensor<2x6xf32>
  %am4 = poot.reshape %amf : tensor<2x6xf32> -> tensor<2x1x1x6xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %inv = poot.sub %one, %am4 : tensor<f32>, tensor<2x1x1x6xf32>
  %inf = poot.constant dense<1.0e+06> : tensor<f32>
  %pen = poot.mul %inf, %inv : tensor<f32>, tensor<2x1x1x6xf32>
  %x = poot.sub %sc2, %pen : tensor<2x2x6x6xf32>, tensor<2x1x1x6xf32>
  // torch.softmax(attn_score, dim=-1, dtype=dtype)
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %p = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  // attn_vec = einsum("bnij,bjnd->bind", attn_prob, v_head)
  %vr = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %o0 = poot.matmul %p, %vr : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  %o1 = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf32>
  %o = poot.reshape %o1 : tensor<2x6x2x16xf32> -> tensor<2x6x32xf32>
  return %o : tensor<2x6x32xf32>
}
