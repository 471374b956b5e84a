// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// THUDM ChatGLM3 modeling_chatglm.py CoreAttention (torch < 2 path) with
// multi_query_attention, bf16, prefill: key and value [sq, b, g, hn] are
// unsqueeze(-2).expand(.., np // g, ..).view(sq, b, np, hn); q, k, v are
// viewed [s, b * np, hn]; matmul_result = torch.baddbmm(empty, q.transpose(0,
// 1), k.transpose(0, 1).transpose(1, 2), beta=0.0, alpha=1 / norm_factor)
// with norm_factor = sqrt(hn) * coeff (coeff = layer_number = 3); viewed
// [b, np, sq, sk], .float(), * coeff; attention_mask = ~ones(b, 1, sq, sk,
// bool).tril_() (a traced constant); masked_fill(mask, -inf); softmax(-1);
// .type_as(v); bmm with v.transpose(0, 1), viewed and permuted back to
// [sq, b, np * hn]. b = 1, np = 4, g = 2, hn = 80, sq = 5.

// CHECK-LABEL: func.func @chatglm3_core_attention_baddbmm_mqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-SAME: n_rep = 2 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.11{{[0-9]*}}, causal{{$}}
func.func @chatglm3_core_attention_baddbmm_mqa_bf16(%q: tensor<5x1x4x80xbf16>, %k: tensor<5x1x2x80xbf16>,
                                                    %v: tensor<5x1x2x80xbf16>) -> tensor<5x1x320xbf16> {
  %k5 = poot.reshape %k : tensor<5x1x2x80xbf16> -> tensor<5x1x2x1x80xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 5, 1, 2, 2, 80>} : tensor<5x1x2x1x80xbf16>
  %kr = poot.reshape %kb : tensor<5x1x2x2x80xbf16> -> tensor<5x1x4x80xbf16>
  %v5 = poot.reshape %v : tensor<5x1x2x80xbf16> -> tensor<5x1x2x1x80xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 5, 1, 2, 2, 80>} : tensor<5x1x2x1x80xbf16>
  %vr = poot.reshape %vb : tensor<5x1x2x2x80xbf16> -> tensor<5x1x4x80xbf16>
  %q3 = poot.reshape %q : tensor<5x1x4x80xbf16> -> tensor<5x4x80xbf16>
  %k3 = poot.reshape %kr : tensor<5x1x4x80xbf16> -> tensor<5x4x80xbf16>
  %v3 = poot.reshape %vr : tensor<5x1x4x80xbf16> -> tensor<5x4x80xbf16>
  %qt = poot.transpose %q3 {perm = array<i64: 1, 0, 2>} : tensor<5x4x80xbf16>
  %kt = poot.transpose %k3 {perm = array<i64: 1, 2, 0>} : tensor<5x4x80xbf16>
  %mm = poot.matmul %qt, %kt : tensor<4x5x80xbf16>, tensor<4x80x5xbf16>
  %alpha = poot.constant dense<0.0372678> : tensor<bf16>
  %s = poot.mul %mm, %alpha : tensor<4x5x5xbf16>, tensor<bf16>
  %s4 = poot.reshape %s : tensor<4x5x5xbf16> -> tensor<1x4x5x5xbf16>
  %sf = poot.convert %s4 : tensor<1x4x5x5xbf16> -> tensor<1x4x5x5xf32>
  %coeff = poot.constant dense<3.0> : tensor<f32>
  %sc = poot.mul %sf, %coeff : tensor<1x4x5x5xf32>, tensor<f32>
  %tril = poot.constant dense<[[[[true, false, false, false, false], [true, true, false, false, false], [true, true, true, false, false], [true, true, true, true, false], [true, true, true, true, true]]]]> : tensor<1x1x5x5xi1>
  %am = poot.not %tril : tensor<1x1x5x5xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %am, %ninf, %sc : tensor<1x1x5x5xi1>, tensor<f32>, tensor<1x4x5x5xf32>
  %mx = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %sm, %mx : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %pb = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xbf16>
  %p3 = poot.reshape %pb : tensor<1x4x5x5xbf16> -> tensor<4x5x5xbf16>
  %vt = poot.transpose %v3 {perm = array<i64: 1, 0, 2>} : tensor<5x4x80xbf16>
  %ctx = poot.matmul %p3, %vt : tensor<4x5x5xbf16>, tensor<4x5x80xbf16>
  %c4 = poot.reshape %ctx : tensor<4x5x80xbf16> -> tensor<1x4x5x80xbf16>
  %cp = poot.transpose %c4 {perm = array<i64: 2, 0, 1, 3>} : tensor<1x4x5x80xbf16>
  %o = poot.reshape %cp : tensor<5x1x4x80xbf16> -> tensor<5x1x320xbf16>
  return %o : tensor<5x1x320xbf16>
}
