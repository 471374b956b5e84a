// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Transfo-XL (models/deprecated/transfo_xl/
// modeling_transfo_xl.py, RelPartialLearnableMultiHeadAttn.forward, with
// TransfoXLModel.forward building dec_attn_mask for same_length=True), f16,
// time-major [len, bsz, ...] throughout: cat = cat([mems, w], 0);
// w_heads = qkv_net(cat); chunk(3, -1); w_head_q = w_head_q[-qlen:];
// r_head_k = r_net(r) viewed [rlen, n_head, d_head];
// AC = einsum("ibnd,jbnd->ijbn", w_head_q + r_w_bias, w_head_k) and
// BD = einsum("ibnd,jnd->ijbn", w_head_q + r_r_bias, r_head_k), each
// lowered as torch.einsum does (permute to bmm operands, permute the
// product back to [qlen, klen, bsz, n_head]); _rel_shift(BD) (cat a zero
// column at dim 1, view [klen + 1, qlen, ...], drop row 0, view_as);
// attn_score = (AC + BD) * scale; mask_value = finfo(f16).min;
// dec_attn_mask = (triu(ones(qlen, klen, bool), 1 + mlen) +
// tril(ones, -mask_shift_len))[:, :, None]; attn_mask == 1;
// attn_score.float().masked_fill(attn_mask[:, :, :, None], mask_value)
// .type_as(attn_score); softmax(dim=1) (the key axis is dim 1, not the
// last); einsum("ijbn,jbnd->ibnd", attn_prob, w_head_v).
// qlen = 4, mlen = 4, klen = 8, mem_len = 6 (mask_shift_len = 2): key t
// is visible from row i iff i - 2 < t <= i + 4, causal at position 4 with
// a window of 6. BD is a bias per cell computed from q. bsz = 2,
// n_head = 2, d_head = 16, d_model = 32.

// CHECK-LABEL: func.func @hf_transfo_xl_same_length_mems_ijbn_softmax_dim1_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) pos({{.+}}) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, window = 6 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask, causal, window 6
func.func @hf_transfo_xl_same_length_mems_ijbn_softmax_dim1_f16(
    %w: tensor<4x2x32xf16>, %mems: tensor<4x2x32xf16>, %r: tensor<8x1x32xf16>,
    %wqkv: tensor<32x96xf16>, %wr: tensor<32x32xf16>,
    %r_w_bias: tensor<2x16xf16>, %r_r_bias: tensor<2x16xf16>) -> tensor<4x2x32xf16> {
  // cat = torch.cat([mems, w], 0); w_heads = self.qkv_net(cat)
  %cat = poot.concat %mems, %w {axis = 0 : i64} : tensor<4x2x32xf16>, tensor<4x2x32xf16>
  %heads = poot.matmul %cat, %wqkv : tensor<8x2x32xf16>, tensor<32x96xf16>
  // r_head_k = self.r_net(r)
  %rk = poot.matmul %r, %wr : tensor<8x1x32xf16>, tensor<32x32xf16>
  // torch.chunk(w_heads, 3, dim=-1); w_head_q = w_head_q[-qlen:]
  %qa = poot.slice %heads {start = array<i64: 0, 0, 0>, limit = array<i64: 8, 2, 32>, step = array<i64: 1, 1, 1>} : tensor<8x2x96xf16>
  %ka = poot.slice %heads {start = array<i64: 0, 0, 32>, limit = array<i64: 8, 2, 64>, step = array<i64: 1, 1, 1>} : tensor<8x2x96xf16>
  %va = poot.slice %heads {start = array<i64: 0, 0, 64>, limit = array<i64: 8, 2, 96>, step = array<i64: 1, 1, 1>} : tensor<8x2x96xf16>
  %ql = poot.slice %qa {start = array<i64: 4, 0, 0>, limit = array<i64: 8, 2, 32>, step = array<i64: 1, 1, 1>} : tensor<8x2x32xf16>
  %q = poot.reshape %ql : tensor<4x2x32xf16> -> tensor<4x2x2x16xf16>
  %k = poot.reshape %ka : tensor<8x2x32xf16> -> tensor<8x2x2x16xf16>
  %v = poot.reshape %va : tensor<8x2x32xf16> -> tensor<8x2x2x16xf16>
  %rh = poot.reshape %rk : tensor<8x1x32xf16> -> tensor<8x2x16xf16>
  // AC = einsum("ibnd,jbnd->ijbn", (rw_head_q, w_head_k))
  %rwq = poot.add %q, %r_w_bias : tensor<4x2x2x16xf16>, tensor<2x16xf16>
  %acl = poot.transpose %rwq {perm = array<i64: 1, 2, 0, 3>} : tensor<4x2x2x16xf16>
  %acr = poot.transpose %k {perm = array<i64: 1, 2, 3, 0>} : tensor<8x2x2x16xf16>
  %ac0 = poot.matmul %acl, %acr : tensor<2x2x4x16xf16>, tensor<2x2x16x8xf16>
  %ac = poot.transpose %ac0 {perm = array<i64: 2, 3, 0, 1>} : tensor<2x2x4x8xf16>
  // BD = einsum("ibnd,jnd->ijbn", (rr_head_q, r_head_k))
  %rrq = poot.add %q, %r_r_bias : tensor<4x2x2x16xf16>, tensor<2x16xf16>
  %bdl0 = poot.transpose %rrq {perm = array<i64: 2, 0, 1, 3>} : tensor<4x2x2x16xf16>
  %bdl = poot.reshape %bdl0 : tensor<2x4x2x16xf16> -> tensor<2x8x16xf16>
  %bdr = poot.transpose %rh {perm = array<i64: 1, 2, 0>} : tensor<8x2x16xf16>
  %bd0 = poot.matmul %bdl, %bdr : tensor<2x8x16xf16>, tensor<2x16x8xf16>
  %bd1 = poot.reshape %bd0 : tensor<2x8x8xf16> -> tensor<2x4x2x8xf16>
  %bd2 = poot.transpose %bd1 {perm = array<i64: 1, 3, 2, 0>} : tensor<2x4x2x8xf16>
  // BD = self._rel_shift(BD)
  %zp = poot.constant dense<0.0> : tensor<4x1x2x2xf16>
  %bdp = poot.concat %zp, %bd2 {axis = 1 : i64} : tensor<4x1x2x2xf16>, tensor<4x8x2x2xf16>
  %bdv = poot.reshape %bdp : tensor<4x9x2x2xf16> -> tensor<9x4x2x2xf16>
  %bds = poot.slice %bdv {start = array<i64: 1, 0, 0, 0>, limit = array<i64: 9, 4, 2, 2>, step = array<i64: 1, 1, 1, 1>} : tensor<9x4x2x2xf16>
  %bd = poot.reshape %bds : tensor<8x4x2x2xf16> -> tensor<4x8x2x2xf16>
  // attn_score = AC + BD; attn_score.mul_(self.scale)
  %sum = poot.add %ac, %bd : tensor<4x8x2x2xf16>, tensor<4x8x2x2xf16>
  %scale = poot.constant dense<0.25> : tensor<f16>
  %score = poot.mul %sum, %scale : tensor<4x8x2x2xf16>, tensor<f16>
  // dec_attn_mask = (triu(all_ones, 1 + mlen) + tril(all_ones, -mask_shift_len))[:, :, None]
  %i = poot.iota {dim = 0 : i64} : tensor<4x8xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<4x8xi64>
  %diag = poot.sub %t, %i : tensor<4x8xi64>, tensor<4x8xi64>
  %c5 = poot.constant dense<5> : tensor<i64>
  %cm2 = poot.constant dense<-2> : tensor<i64>
  %triu = poot.compare ge, %diag, %c5 : tensor<4x8xi64>, tensor<i64>
  %tril = poot.compare le, %diag, %cm2 : tensor<4x8xi64>, tensor<i64>
  %m2 = poot.or %triu, %tril : tensor<4x8xi1>, tensor<4x8xi1>
  %m3 = poot.reshape %m2 : tensor<4x8xi1> -> tensor<4x8x1xi1>
  // attn_mask = attn_mask == 1
  %mi = poot.convert %m3 : tensor<4x8x1xi1> -> tensor<4x8x1xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %am = poot.compare eq, %mi, %one : tensor<4x8x1xi64>, tensor<i64>
  %am4 = poot.reshape %am : tensor<4x8x1xi1> -> tensor<4x8x1x1xi1>
  // attn_score.float().masked_fill(attn_mask[:, :, :, None], mask_value).type_as(attn_score)
  %sf = poot.convert %score : tensor<4x8x2x2xf16> -> tensor<4x8x2x2xf32>
  %fmin = poot.constant dense<-65504.0> : tensor<f32>
  %filled = poot.select %am4, %fmin, %sf : tensor<4x8x1x1xi1>, tensor<f32>, tensor<4x8x2x2xf32>
  %sh = poot.convert %filled : tensor<4x8x2x2xf32> -> tensor<4x8x2x2xf16>
  // nn.functional.softmax(attn_score, dim=1) (half in, f32 accumulation, half out)
  %x = poot.convert %sh : tensor<4x8x2x2xf16> -> tensor<4x8x2x2xf32>
  %mx = poot.reduce_max %x {axis = 1 : i64, keepdim} : tensor<4x8x2x2xf32>
  %d = poot.sub %x, %mx : tensor<4x8x2x2xf32>, tensor<4x1x2x2xf32>
  %e = poot.exp %d : tensor<4x8x2x2xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<4x8x2x2xf32>
  %p = poot.div %e, %z : tensor<4x8x2x2xf32>, tensor<4x1x2x2xf32>
  %ph = poot.convert %p : tensor<4x8x2x2xf32> -> tensor<4x8x2x2xf16>
  // attn_vec = einsum("ijbn,jbnd->ibnd", (attn_prob, w_head_v))
  %pl = poot.transpose %ph {perm = array<i64: 2, 3, 0, 1>} : tensor<4x8x2x2xf16>
  %vr = poot.transpose %v {perm = array<i64: 1, 2, 0, 3>} : tensor<8x2x2x16xf16>
  %o0 = poot.matmul %pl, %vr : tensor<2x2x4x8xf16>, tensor<2x2x8x16xf16>
  %o1 = poot.transpose %o0 {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x4x16xf16>
  %o = poot.reshape %o1 : tensor<4x2x2x16xf16> -> tensor<4x2x32xf16>
  return %o : tensor<4x2x32xf16>
}
