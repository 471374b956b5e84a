// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// NVIDIA NeMo (nemo/collections/asr/parts/submodules/multi_head_attention.py,
// RelPositionMultiHeadAttention.forward with use_pytorch_sdpa=True), the
// Conformer encoder's masks from ConformerEncoder._create_masks
// (att_context_style "regular", att_context_size [3, 0]): pad_mask =
// arange(T) < length[:, None]; pad_mask.unsqueeze(1).repeat([1, T, 1])
// and-ed with its transpose(1, 2) (query and key padding); ones(1, T, T)
// .triu(-3).tril(0); att_mask = ~(pad & band). Attention: q, k, v viewed
// [B, T, H, d_k] and transposed; p = linear_pos(pos_emb) viewed per head;
// q_with_bias_u / _v = (q + pos_bias_u / _v).transpose(1, 2);
// matrix_bd = q_v @ p^T; rel_shift (pad a zero column on the left, view
// [B, H, 2T, T], drop row 0, view [B, H, T, 2T-1]); matrix_bd[..., :T] *
// (1 / sqrt(d_k)); matrix_bd.masked_fill_(mask.unsqueeze(1), -10000.0);
// scaled_dot_product_attention(q_u, k, v, attn_mask=matrix_bd), here
// through torch's math path (q and k^T each times sqrt(scale), + attn_mask,
// softmax, @ v); then out.masked_fill(all(mask, -1)[..., None]
// .expand(-1, H, -1, d_k), 0.0) after the product. A padded query row has
// every key at -10000 + its score (finite: softmax of the scores alone),
// and the fill after P . V zeroes it, so the attention with the masked bd
// as a tensor mask is exact and the fill stays after it.
// B = 2, T = 6, H = 2, d_k = 16, n_feat = 32.

// CHECK-LABEL: func.func @nemo_rel_pos_sdpa_bd_attn_mask_10000_masked_rows_zero_after_pv_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.select %{{.+}}, %{{.+}}, %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @nemo_rel_pos_sdpa_bd_attn_mask_10000_masked_rows_zero_after_pv_f32(
    %q0: tensor<2x6x32xf32>, %k0: tensor<2x6x32xf32>, %v0: tensor<2x6x32xf32>,
    %pos_emb: tensor<1x11x32xf32>, %w_pos: tensor<32x32xf32>,
    %pos_bias_u: tensor<2x16xf32>, %pos_bias_v: tensor<2x16xf32>,
    %length: tensor<2xi64> {poot.range = array<i64: 1, 7>}) -> tensor<2x6x32xf32> {
  // _create_masks: pad_mask = arange(0, T).expand(B, -1) < padding_length.unsqueeze(-1)
  %ar = poot.iota {dim = 1 : i64} : tensor<2x6xi64>
  %len2 = poot.reshape %length : tensor<2xi64> -> tensor<2x1xi64>
  %pad = poot.compare lt, %ar, %len2 : tensor<2x6xi64>, tensor<2x1xi64>
  // pad_mask.unsqueeze(1).repeat([1, T, 1]); logical_and(x, x.transpose(1, 2))
  %pad3 = poot.reshape %pad : tensor<2x6xi1> -> tensor<2x1x6xi1>
  %padr = poot.broadcast %pad3 {shape = array<i64: 2, 6, 6>} : tensor<2x1x6xi1>
  %padt = poot.transpose %padr {perm = array<i64: 0, 2, 1>} : tensor<2x6x6xi1>
  %padqk = poot.and %padr, %padt : tensor<2x6x6xi1>, tensor<2x6x6xi1>
  // att_mask = ones(1, T, T, bool).triu(diagonal=-3).tril(diagonal=0)
  %ri = poot.iota {dim = 1 : i64} : tensor<1x6x6xi64>
  %ci = poot.iota {dim = 2 : i64} : tensor<1x6x6xi64>
  %dg = poot.sub %ci, %ri : tensor<1x6x6xi64>, tensor<1x6x6xi64>
  %lm3 = poot.constant dense<-3> : tensor<i64>
  %z0 = poot.constant dense<0> : tensor<i64>
  %triu = poot.compare ge, %dg, %lm3 : tensor<1x6x6xi64>, tensor<i64>
  %tril = poot.compare le, %dg, %z0 : tensor<1x6x6xi64>, tensor<i64>
  %band = poot.and %triu, %tril : tensor<1x6x6xi1>, tensor<1x6x6xi1>
  // att_mask = ~logical_and(pad_mask_for_att_mask, att_mask)
  %keep = poot.and %padqk, %band : tensor<2x6x6xi1>, tensor<1x6x6xi1>
  %mask = poot.not %keep : tensor<2x6x6xi1>
  // forward_qkv
  %q4 = poot.reshape %q0 : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %k4 = poot.reshape %k0 : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %v4 = poot.reshape %v0 : tensor<2x6x32xf32> -> tensor<2x6x2x16xf32>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %q = poot.transpose %qh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf32>
  // p = self.linear_pos(pos_emb).view(1, -1, h, d_k).transpose(1, 2)
  %pl = poot.matmul %pos_emb, %w_pos : tensor<1x11x32xf32>, tensor<32x32xf32>
  %p4 = poot.reshape %pl : tensor<1x11x32xf32> -> tensor<1x11x2x16xf32>
  %p = poot.transpose %p4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x11x2x16xf32>
  // q_with_bias_u / q_with_bias_v
  %qu0 = poot.add %q, %pos_bias_u : tensor<2x6x2x16xf32>, tensor<2x16xf32>
  %qu = poot.transpose %qu0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  %qv0 = poot.add %q, %pos_bias_v : tensor<2x6x2x16xf32>, tensor<2x16xf32>
  %qv = poot.transpose %qv0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x2x16xf32>
  // matrix_bd = torch.matmul(q_with_bias_v, p.transpose(-2, -1)); rel_shift
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x11x16xf32>
  %bd0 = poot.matmul %qv, %pt : tensor<2x2x6x16xf32>, tensor<1x2x16x11xf32>
  %zc = poot.constant dense<0.0> : tensor<2x2x6x1xf32>
  %bdp = poot.concat %zc, %bd0 {axis = 3 : i64} : tensor<2x2x6x1xf32>, tensor<2x2x6x11xf32>
  %bdv = poot.reshape %bdp : tensor<2x2x6x12xf32> -> tensor<2x2x12x6xf32>
  %bds = poot.slice %bdv {start = array<i64: 0, 0, 1, 0>, limit = array<i64: 2, 2, 12, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x12x6xf32>
  %bdw = poot.reshape %bds : tensor<2x2x11x6xf32> -> tensor<2x2x6x11xf32>
  // matrix_bd = matrix_bd[:, :, :, :k.size(-2)] * scale_factor
  %bdk = poot.slice %bdw {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 2, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x6x11xf32>
  %sf = poot.constant dense<0.25> : tensor<f32>
  %bd = poot.mul %bdk, %sf : tensor<2x2x6x6xf32>, tensor<f32>
  // mask = mask.unsqueeze(1); matrix_bd.masked_fill_(mask, -INF_VAL)
  %m4 = poot.reshape %mask : tensor<2x6x6xi1> -> tensor<2x1x6x6xi1>
  %ninf = poot.constant dense<-10000.0> : tensor<f32>
  %bias = poot.select %m4, %ninf, %bd : tensor<2x1x6x6xi1>, tensor<f32>, tensor<2x2x6x6xf32>
  // scaled_dot_product_attention(q_with_bias_u, k, v, attn_mask=matrix_bd), math path
  %sq = poot.constant dense<0.5> : tensor<f32>
  %qs = poot.mul %qu, %sq : tensor<2x2x6x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x6x16xf32>
  %kts = poot.mul %kt, %sq : tensor<2x2x16x6xf32>, tensor<f32>
  %s = poot.matmul %qs, %kts : tensor<2x2x6x16xf32>, tensor<2x2x16x6xf32>
  %x = poot.add %s, %bias : tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %d = poot.sub %x, %mx : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %e = poot.exp %d : tensor<2x2x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x6x6xf32>
  %pr = poot.div %e, %zs : tensor<2x2x6x6xf32>, tensor<2x2x6x1xf32>
  %out = poot.matmul %pr, %v : tensor<2x2x6x6xf32>, tensor<2x2x6x16xf32>
  // all_masked_rows = torch.all(mask, dim=-1).unsqueeze(-1).expand(-1, H, -1, d_k)
  %mf = poot.convert %m4 : tensor<2x1x6x6xi1> -> tensor<2x1x6x6xf32>
  %allf = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<2x1x6x6xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %all = poot.compare eq, %allf, %onef : tensor<2x1x6x1xf32>, tensor<f32>
  %allx = poot.broadcast %all {shape = array<i64: 2, 2, 6, 16>} : tensor<2x1x6x1xi1>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %outz = poot.select %allx, %zf, %out : tensor<2x2x6x16xi1>, tensor<f32>, tensor<2x2x6x16xf32>
  // out.transpose(1, 2).reshape(n_batch, -1, h * d_k)
  %ot = poot.transpose %outz {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x6x16xf32>
  %o = poot.reshape %ot : tensor<2x6x2x16xf32> -> tensor<2x6x32xf32>
  return %o : tensor<2x6x32xf32>
}
