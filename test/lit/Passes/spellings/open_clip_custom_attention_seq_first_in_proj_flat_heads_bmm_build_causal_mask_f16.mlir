// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// OpenCLIP (mlfoundations/open_clip at 01c3cd5, src/open_clip/transformer.py,
// Attention.forward as used by CustomResidualAttentionBlock, batch_first,
// scaled_cosine off, on its non-SDPA path: use_fsdpa False on a torch
// without scaled_dot_product_attention), the text tower in f16
// (model.half(), so the causal-mask buffer is f16 too). The mask is
// TextTransformer.build_causal_mask: torch.empty(num_pos, num_pos)
// .fill_(-inf).triu_(1) (a float mask, so the bool branch is skipped).
// Attention.forward: x.transpose(0, 1) to [L, N, C]; F.linear(x,
// in_proj_weight, in_proj_bias).chunk(3, -1); q.reshape(L, N * heads,
// -1).transpose(0, 1) (the flattened batch is (N, heads), N outer), k and
// v likewise; q = q * self.scale (head_dim^-0.5); attn = torch.bmm(q,
// k.transpose(-1, -2)); attn += attn_mask; attn.softmax(dim=-1) (f16);
// x = torch.bmm(attn, v); x.transpose(0, 1).reshape(L, N, C);
// transpose(0, 1) back (out_proj follows outside). N = 2, L = num_pos = 6,
// C = 64 in 4 heads of 16. The in_proj weight is given transposed.
//
// Strongest form: the (N * heads) batch is a view of [N, heads]; the
// -inf triu(1) table is the causal band: one fused causal op, scale 1/4,
// n_rep 1, no tensor mask.

// CHECK-LABEL: func.func @open_clip_custom_attention_seq_first_in_proj_flat_heads_bmm_build_causal_mask_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal
func.func @open_clip_custom_attention_seq_first_in_proj_flat_heads_bmm_build_causal_mask_f16(
    %xin: tensor<2x6x64xf16>, %in_proj_weight_t: tensor<64x192xf16>,
    %in_proj_bias: tensor<192xf16>) -> tensor<2x6x64xf16> {
  // if self.batch_first: x = x.transpose(0, 1)
  %x = poot.transpose %xin {perm = array<i64: 1, 0, 2>} : tensor<2x6x64xf16>
  // F.linear(x, self.in_proj_weight, self.in_proj_bias).chunk(3, dim=-1)
  %qkv0 = poot.matmul %x, %in_proj_weight_t : tensor<6x2x64xf16>, tensor<64x192xf16>
  %qkv = poot.add %qkv0, %in_proj_bias : tensor<6x2x192xf16>, tensor<192xf16>
  %q0 = poot.slice %qkv {start = array<i64: 0, 0, 0>, limit = array<i64: 6, 2, 64>, step = array<i64: 1, 1, 1>} : tensor<6x2x192xf16>
  %k0 = poot.slice %qkv {start = array<i64: 0, 0, 64>, limit = array<i64: 6, 2, 128>, step = array<i64: 1, 1, 1>} : tensor<6x2x192xf16>
  %v0 = poot.slice %qkv {start = array<i64: 0, 0, 128>, limit = array<i64: 6, 2, 192>, step = array<i64: 1, 1, 1>} : tensor<6x2x192xf16>
  // q.reshape(L, N * self.num_heads, -1).transpose(0, 1)
  %q1 = poot.reshape %q0 : tensor<6x2x64xf16> -> tensor<6x8x16xf16>
  %q2 = poot.transpose %q1 {perm = array<i64: 1, 0, 2>} : tensor<6x8x16xf16>
  %k1 = poot.reshape %k0 : tensor<6x2x64xf16> -> tensor<6x8x16xf16>
  %k = poot.transpose %k1 {perm = array<i64: 1, 0, 2>} : tensor<6x8x16xf16>
  %v1 = poot.reshape %v0 : tensor<6x2x64xf16> -> tensor<6x8x16xf16>
  %v = poot.transpose %v1 {perm = array<i64: 1, 0, 2>} : tensor<6x8x16xf16>
  // q = q * self.scale; attn = torch.bmm(q, k.transpose(-1, -2))
  %scale = poot.constant dense<0.25> : tensor<f16>
  %q = poot.mul %q2, %scale : tensor<8x6x16xf16>, tensor<f16>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<8x6x16xf16>
  %attn0 = poot.matmul %q, %kt : tensor<8x6x16xf16>, tensor<8x16x6xf16>
  // attn += attn_mask (build_causal_mask: empty.fill_(-inf).triu_(1), f16 buffer)
  %mask = poot.constant dense<[[0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0xFC00, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0xFC00, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0xFC00, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0xFC00], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<6x6xf16>
  %attn1 = poot.add %attn0, %mask : tensor<8x6x6xf16>, tensor<6x6xf16>
  // attn.softmax(dim=-1)
  %mx = poot.reduce_max %attn1 {axis = 2 : i64, keepdim} : tensor<8x6x6xf16>
  %d = poot.sub %attn1, %mx : tensor<8x6x6xf16>, tensor<8x6x1xf16>
  %e = poot.exp %d : tensor<8x6x6xf16>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x6x6xf16>
  %p = poot.div %e, %z : tensor<8x6x6xf16>, tensor<8x6x1xf16>
  // x = torch.bmm(attn, v); x.transpose(0, 1).reshape(L, N, C); transpose(0, 1)
  %o = poot.matmul %p, %v : tensor<8x6x6xf16>, tensor<8x6x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 1, 0, 2>} : tensor<8x6x16xf16>
  %o3 = poot.reshape %ot : tensor<6x8x16xf16> -> tensor<6x2x64xf16>
  %out = poot.transpose %o3 {perm = array<i64: 1, 0, 2>} : tensor<6x2x64xf16>
  return %out : tensor<2x6x64xf16>
}
