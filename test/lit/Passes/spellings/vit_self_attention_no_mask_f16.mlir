// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF ViTSelfAttention (and the other vision encoders): q, k, v [B, L, E]
// from the projections; transpose_for_scores views them [B, L, H, D] and
// permutes to [B, H, L, D]; scores = q @ k^T / sqrt(D); softmax(dim=-1)
// in f16; context = p @ v, permuted back and viewed [B, L, E]. No mask.
// B = 1, L = 6, H = 2, D = 64.

// CHECK-LABEL: func.func @vit_self_attention_no_mask_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 1.250000e-01 : f64} : tensor<1x2x6x64xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125
func.func @vit_self_attention_no_mask_f16(%q: tensor<1x6x128xf16>, %k: tensor<1x6x128xf16>,
                                          %v: tensor<1x6x128xf16>) -> tensor<1x6x128xf16> {
  %q4 = poot.reshape %q : tensor<1x6x128xf16> -> tensor<1x6x2x64xf16>
  %k4 = poot.reshape %k : tensor<1x6x128xf16> -> tensor<1x6x2x64xf16>
  %v4 = poot.reshape %v : tensor<1x6x128xf16> -> tensor<1x6x2x64xf16>
  %qh = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x64xf16>
  %kh = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x64xf16>
  %vh = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x64xf16>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x6x64xf16>
  %s = poot.matmul %qh, %kt : tensor<1x2x6x64xf16>, tensor<1x2x64x6xf16>
  %sd = poot.constant dense<8.0> : tensor<f16>
  %ss = poot.div %s, %sd : tensor<1x2x6x6xf16>, tensor<f16>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf16>
  %d = poot.sub %ss, %m : tensor<1x2x6x6xf16>, tensor<1x2x6x1xf16>
  %e = poot.exp %d : tensor<1x2x6x6xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x6x6xf16>
  %p = poot.div %e, %z : tensor<1x2x6x6xf16>, tensor<1x2x6x1xf16>
  %c = poot.matmul %p, %vh : tensor<1x2x6x6xf16>, tensor<1x2x6x64xf16>
  %ct = poot.transpose %c {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x6x64xf16>
  %o = poot.reshape %ct : tensor<1x6x2x64xf16> -> tensor<1x6x128xf16>
  return %o : tensor<1x6x128xf16>
}
