// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers XLM as a causal LM (models/xlm/modeling_xlm.py, get_masks
// with causal=True and MultiHeadAttention.forward), f32: alen =
// arange(slen) (int64); attn_mask = alen[None, None, :].repeat(bs, slen, 1)
// <= alen[None, :, None] ([bs, slen, slen], the padding mask is not part of
// it when causal); q = shape(q_lin(x)) / sqrt(dim_per_head); scores =
// matmul(q, k^T); mask = (mask == 0).view(bs, 1, qlen, klen)
// .expand_as(scores); scores.masked_fill_(mask, finfo(f32).min); weights =
// softmax(scores.float(), -1).type_as(scores); matmul(weights, v). B = 2,
// H = 4, slen = 5, dim_per_head = 16.

// CHECK-LABEL: func.func @hf_xlm_causal_repeat_eq0_finfo_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @hf_xlm_causal_repeat_eq0_finfo_f32(
    %xq: tensor<2x5x64xf32>, %xk: tensor<2x5x64xf32>, %xv: tensor<2x5x64xf32>) -> tensor<2x5x64xf32> {
  // get_masks(causal=True)
  %alen = poot.iota {dim = 0 : i64} : tensor<5xi64>
  %a3 = poot.reshape %alen : tensor<5xi64> -> tensor<1x1x5xi64>
  %arep = poot.broadcast %a3 {shape = array<i64: 2, 5, 5>} : tensor<1x1x5xi64>
  %acol = poot.reshape %alen : tensor<5xi64> -> tensor<1x5x1xi64>
  %attn_mask = poot.compare le, %arep, %acol : tensor<2x5x5xi64>, tensor<1x5x1xi64>
  // MultiHeadAttention
  %q4 = poot.reshape %xq : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  %k4 = poot.reshape %xk : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  %v4 = poot.reshape %xv : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %q = poot.div %qh, %sq : tensor<2x4x5x16xf32>, tensor<f32>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x16xf32>
  %scores = poot.matmul %q, %kt : tensor<2x4x5x16xf32>, tensor<2x4x16x5xf32>
  // mask = (mask == 0).view(mask_reshape).expand_as(scores)
  %mi = poot.convert %attn_mask : tensor<2x5x5xi1> -> tensor<2x5x5xi64>
  %z = poot.constant dense<0> : tensor<i64>
  %eq0 = poot.compare eq, %mi, %z : tensor<2x5x5xi64>, tensor<i64>
  %m4 = poot.reshape %eq0 : tensor<2x5x5xi1> -> tensor<2x1x5x5xi1>
  %mexp = poot.broadcast %m4 {shape = array<i64: 2, 4, 5, 5>} : tensor<2x1x5x5xi1>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %sm = poot.select %mexp, %min, %scores : tensor<2x4x5x5xi1>, tensor<f32>, tensor<2x4x5x5xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %d = poot.sub %sm, %mx : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %e = poot.exp %d : tensor<2x4x5x5xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %w = poot.div %e, %zs : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %ctx = poot.matmul %w, %vh : tensor<2x4x5x5xf32>, tensor<2x4x5x16xf32>
  %ct = poot.transpose %ctx {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x5x16xf32>
  %out = poot.reshape %ct : tensor<2x5x4x16xf32> -> tensor<2x5x64xf32>
  return %out : tensor<2x5x64xf32>
}
