// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// ParlAI parlai/agents/transformer/modules/attention.py, MultiHeadAttention
// .forward, decoder self-attention on a prefill (no incr_state), f16. The
// mask is TransformerDecoderLayer._create_selfattn_mask: torch.tril(x.new(
// time, time).fill_(1)) (an f16 0/1 table, traced as a constant),
// unsqueeze(0).expand(bsz, -1, -1). In the attention: prepare_head views
// [B, T, H, dph] -> transpose(1, 2) -> [B * H, T, dph]; dot_prod =
// q.div_(sqrt(dph)).bmm(k.transpose(1, 2)); attn_mask = (mask == 0)
// .view(B, 1, -1, T).repeat(1, H, 1, 1).expand(B, H, T, T).view(B * H, T, T);
// dot_prod.masked_fill_(attn_mask, neginf(f16)) with neginf(f16) =
// -NEAR_INF_FP16 = -65504; F.softmax(dim=-1, dtype=float).type_as(query);
// attn_weights.bmm(v).view(B, H, T, dph).transpose(1, 2).view(B, T, dim).
// B 2, H 2, T 6, dph 16 (q divided by 4).
//
// Strongest form: causal (every row keeps its diagonal key, so the -65504
// fill hides keys exactly as -inf), n_rep 1, scale 1/4, no tensor mask.

// CHECK-LABEL: func.func @parlai_mha_div_scale_bmm_tril_fill_repeat_heads_neginf_fp16_softmax_float_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @parlai_mha_div_scale_bmm_tril_fill_repeat_heads_neginf_fp16_softmax_float_f16(
    %xq: tensor<2x6x32xf16>, %xk: tensor<2x6x32xf16>, %xv: tensor<2x6x32xf16>) -> tensor<2x6x32xf16> {
  // _create_selfattn_mask: tril(x.new(time, time).fill_(1)).unsqueeze(0).expand(bsz, -1, -1)
  %tril = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<6x6xf16>
  %t3 = poot.reshape %tril : tensor<6x6xf16> -> tensor<1x6x6xf16>
  %mask = poot.broadcast %t3 {shape = array<i64: 2, 6, 6>} : tensor<1x6x6xf16>
  // prepare_head(q_lin(query)) etc.
  %q4 = poot.reshape %xq : tensor<2x6x32xf16> -> tensor<2x6x2x16xf16>
  %q4t = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf16>
  %q = poot.reshape %q4t : tensor<2x2x6x16xf16> -> tensor<4x6x16xf16>
  %k4 = poot.reshape %xk : tensor<2x6x32xf16> -> tensor<2x6x2x16xf16>
  %k4t = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf16>
  %k = poot.reshape %k4t : tensor<2x2x6x16xf16> -> tensor<4x6x16xf16>
  %v4 = poot.reshape %xv : tensor<2x6x32xf16> -> tensor<2x6x2x16xf16>
  %v4t = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf16>
  %v = poot.reshape %v4t : tensor<2x2x6x16xf16> -> tensor<4x6x16xf16>
  // dot_prod = q.div_(scale).bmm(k.transpose(1, 2))
  %sc = poot.constant dense<4.0> : tensor<f16>
  %qd = poot.div %q, %sc : tensor<4x6x16xf16>, tensor<f16>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x6x16xf16>
  %dot = poot.matmul %qd, %kt : tensor<4x6x16xf16>, tensor<4x16x6xf16>
  // (mask == 0).view(B, 1, -1, T).repeat(1, H, 1, 1).expand(...).view(B * H, T, T)
  %z16 = poot.constant dense<0.0> : tensor<f16>
  %eq0 = poot.compare eq, %mask, %z16 : tensor<2x6x6xf16>, tensor<f16>
  %m4 = poot.reshape %eq0 : tensor<2x6x6xi1> -> tensor<2x1x6x6xi1>
  %mrep = poot.broadcast %m4 {shape = array<i64: 2, 2, 6, 6>} : tensor<2x1x6x6xi1>
  %am = poot.reshape %mrep : tensor<2x2x6x6xi1> -> tensor<4x6x6xi1>
  // dot_prod.masked_fill_(attn_mask, neginf(f16))
  %neg = poot.constant dense<-6.550400e+04> : tensor<f16>
  %filled = poot.select %am, %neg, %dot : tensor<4x6x6xi1>, tensor<f16>, tensor<4x6x6xf16>
  // F.softmax(dot_prod, dim=-1, dtype=torch.float).type_as(query)
  %x = poot.convert %filled : tensor<4x6x6xf16> -> tensor<4x6x6xf32>
  %mx = poot.reduce_max %x {axis = 2 : i64, keepdim} : tensor<4x6x6xf32>
  %d = poot.sub %x, %mx : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %e = poot.exp %d : tensor<4x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x6x6xf32>
  %p = poot.div %e, %zs : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %ph = poot.convert %p : tensor<4x6x6xf32> -> tensor<4x6x6xf16>
  // attn_weights.bmm(v).view(B, H, T, dph).transpose(1, 2).view(B, T, dim)
  %o = poot.matmul %ph, %v : tensor<4x6x6xf16>, tensor<4x6x16xf16>
  %o4 = poot.reshape %o : tensor<4x6x16xf16> -> tensor<2x2x6x16xf16>
  %o4t = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf16>
  %out = poot.reshape %o4t : tensor<2x6x2x16xf16> -> tensor<2x6x32xf16>
  return %out : tensor<2x6x32xf16>
}
