// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// diffusers PAGJointAttnProcessor2_0 (models/attention_processor.py), the
// perturbed path of SD3 perturbed-attention guidance, f16: the sample and
// context projections are concatenated BEFORE the head split, query_ptb =
// cat([to_q(hidden_states), add_q_proj(encoder_hidden_states)], dim=1)
// (sample first, then context; k and v likewise), then view(B, -1, heads,
// head_dim).transpose(1, 2); full_mask = zeros((L, L)), the sample block
// [:N, :N] set to -inf and its diagonal back to 0 (fill_diagonal_), so an
// image token sees only itself and the text, while a text token sees every
// token; unsqueeze(0).unsqueeze(0) and F.scaled_dot_product_attention(...,
// attn_mask=full_mask) as torch 2.5's math path decomposes it: q and k^T
// times sqrt(scale) each, + attn_mask, softmax, _safe_softmax's
// where(all(x == -inf, -1), 0, p); transpose(1, 2).reshape(B, -1, C)
// .to(f16), then split at the sample length into the two streams. B = 1,
// 4 image tokens, 3 text tokens, 2 heads of 16, hidden 32.

// CHECK-LABEL: func.func @diffusers_pag_joint_identity_block_mask_safe_softmax_f16
// CHECK-NOT: poot.exp
// CHECK: poot.attention {{.+}} mask({{.+}} : tensor<1x1x7x7xf16>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum|reduce_min}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; empty-row guard never fires{{$}}
func.func @diffusers_pag_joint_identity_block_mask_safe_softmax_f16(
    %hs: tensor<1x4x32xf16>, %ehs: tensor<1x3x32xf16>,
    %wq: tensor<32x32xf16>, %bq: tensor<32xf16>, %wk: tensor<32x32xf16>, %bk: tensor<32xf16>,
    %wv: tensor<32x32xf16>, %bv: tensor<32xf16>,
    %waq: tensor<32x32xf16>, %baq: tensor<32xf16>, %wak: tensor<32x32xf16>, %bak: tensor<32xf16>,
    %wav: tensor<32x32xf16>, %bav: tensor<32xf16>) -> (tensor<1x4x32xf16>, tensor<1x3x32xf16>) {
  // `sample` projections
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %q0 = poot.matmul %hs, %wqt : tensor<1x4x32xf16>, tensor<32x32xf16>
  %qs = poot.add %q0, %bq : tensor<1x4x32xf16>, tensor<32xf16>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %k0 = poot.matmul %hs, %wkt : tensor<1x4x32xf16>, tensor<32x32xf16>
  %ks = poot.add %k0, %bk : tensor<1x4x32xf16>, tensor<32xf16>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %v0 = poot.matmul %hs, %wvt : tensor<1x4x32xf16>, tensor<32x32xf16>
  %vs = poot.add %v0, %bv : tensor<1x4x32xf16>, tensor<32xf16>
  // `context` projections
  %waqt = poot.transpose %waq {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %cq0 = poot.matmul %ehs, %waqt : tensor<1x3x32xf16>, tensor<32x32xf16>
  %cq = poot.add %cq0, %baq : tensor<1x3x32xf16>, tensor<32xf16>
  %wakt = poot.transpose %wak {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %ck0 = poot.matmul %ehs, %wakt : tensor<1x3x32xf16>, tensor<32x32xf16>
  %ck = poot.add %ck0, %bak : tensor<1x3x32xf16>, tensor<32xf16>
  %wavt = poot.transpose %wav {perm = array<i64: 1, 0>} : tensor<32x32xf16>
  %cv0 = poot.matmul %ehs, %wavt : tensor<1x3x32xf16>, tensor<32x32xf16>
  %cv = poot.add %cv0, %bav : tensor<1x3x32xf16>, tensor<32xf16>
  // torch.cat([sample, context], dim=1), then the head split
  %qc = poot.concat %qs, %cq {axis = 1 : i64} : tensor<1x4x32xf16>, tensor<1x3x32xf16>
  %kc = poot.concat %ks, %ck {axis = 1 : i64} : tensor<1x4x32xf16>, tensor<1x3x32xf16>
  %vc = poot.concat %vs, %cv {axis = 1 : i64} : tensor<1x4x32xf16>, tensor<1x3x32xf16>
  %q4 = poot.reshape %qc : tensor<1x7x32xf16> -> tensor<1x7x2x16xf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x2x16xf16>
  %k4 = poot.reshape %kc : tensor<1x7x32xf16> -> tensor<1x7x2x16xf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x2x16xf16>
  %v4 = poot.reshape %vc : tensor<1x7x32xf16> -> tensor<1x7x2x16xf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x7x2x16xf16>
  // full_mask: -inf on the sample block off its diagonal
  %fm = poot.constant dense<[[0.0, 0xFC00, 0xFC00, 0xFC00, 0.0, 0.0, 0.0],
                               [0xFC00, 0.0, 0xFC00, 0xFC00, 0.0, 0.0, 0.0],
                               [0xFC00, 0xFC00, 0.0, 0xFC00, 0.0, 0.0, 0.0],
                               [0xFC00, 0xFC00, 0xFC00, 0.0, 0.0, 0.0, 0.0],
                               [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                               [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                               [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<7x7xf16>
  %mask = poot.reshape %fm : tensor<7x7xf16> -> tensor<1x1x7x7xf16>
  // scaled_dot_product_attention, math path
  %sq = poot.constant dense<5.000000e-01> : tensor<f16>
  %qq = poot.mul %q, %sq : tensor<1x2x7x16xf16>, tensor<f16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x7x16xf16>
  %kts = poot.mul %kt, %sq : tensor<1x2x16x7xf16>, tensor<f16>
  %s0 = poot.matmul %qq, %kts : tensor<1x2x7x16xf16>, tensor<1x2x16x7xf16>
  %x = poot.add %s0, %mask : tensor<1x2x7x7xf16>, tensor<1x1x7x7xf16>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x7x7xf16>
  %d = poot.sub %x, %mx : tensor<1x2x7x7xf16>, tensor<1x2x7x1xf16>
  %e = poot.exp %d : tensor<1x2x7x7xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x7x7xf16>
  %p = poot.div %e, %z : tensor<1x2x7x7xf16>, tensor<1x2x7x1xf16>
  %ninf = poot.constant dense<0xFC00> : tensor<f16>
  %masked = poot.compare eq, %x, %ninf : tensor<1x2x7x7xf16>, tensor<f16>
  %mf = poot.convert %masked : tensor<1x2x7x7xi1> -> tensor<1x2x7x7xf16>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x2x7x7xf16>
  %one = poot.constant dense<1.0> : tensor<f16>
  %rows = poot.compare eq, %all, %one : tensor<1x2x7x1xf16>, tensor<f16>
  %zero = poot.constant dense<0.0> : tensor<f16>
  %ps = poot.select %rows, %zero, %p : tensor<1x2x7x1xi1>, tensor<f16>, tensor<1x2x7x7xf16>
  %o = poot.matmul %ps, %v : tensor<1x2x7x7xf16>, tensor<1x2x7x16xf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x7x16xf16>
  %out = poot.reshape %ot : tensor<1x7x2x16xf16> -> tensor<1x7x32xf16>
  // hidden_states_ptb[:, :N], hidden_states_ptb[:, N:]
  %oh = poot.slice %out {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 4, 32>, step = array<i64: 1, 1, 1>} : tensor<1x7x32xf16>
  %oe = poot.slice %out {start = array<i64: 0, 4, 0>, limit = array<i64: 1, 7, 32>, step = array<i64: 1, 1, 1>} : tensor<1x7x32xf16>
  return %oh, %oe : tensor<1x4x32xf16>, tensor<1x3x32xf16>
}
