// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPT2Attention._upcast_and_reordered_attn (reorder_and_upcast_attn) in
// f16: q.reshape(-1, q_len, dk) and k.transpose(-1, -2).reshape(-1, dk, k_len);
// attn = baddbmm(empty(b*h, q, k, f32), q.float(), k.float(), beta=0,
// alpha=1 / sqrt(dk)); reshape(b, h, q, k); where(causal_mask, attn,
// finfo(f32).min); softmax(dim=-1); attn.type(v.dtype) (f16); matmul(attn, v).
// Prefill, B = 1, H = 2, L = 8, D = 64.

// CHECK-LABEL: func.func @gpt2_upcast_reordered_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, causal
func.func @gpt2_upcast_reordered_f16(%q: tensor<1x2x8x64xf16>, %k: tensor<1x2x8x64xf16>,
                                     %v: tensor<1x2x8x64xf16>) -> tensor<1x2x8x64xf16> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]]]> : tensor<1x1x8x8xi1>
  %q3 = poot.reshape %q : tensor<1x2x8x64xf16> -> tensor<2x8x64xf16>
  %kt4 = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x64xf16>
  %kt3 = poot.reshape %kt4 : tensor<1x2x64x8xf16> -> tensor<2x64x8xf16>
  %qf = poot.convert %q3 : tensor<2x8x64xf16> -> tensor<2x8x64xf32>
  %kf = poot.convert %kt3 : tensor<2x64x8xf16> -> tensor<2x64x8xf32>
  %qk = poot.matmul %qf, %kf : tensor<2x8x64xf32>, tensor<2x64x8xf32>
  %alpha = poot.constant dense<0.125> : tensor<f32>
  %a = poot.mul %qk, %alpha : tensor<2x8x8xf32>, tensor<f32>
  %a4 = poot.reshape %a : tensor<2x8x8xf32> -> tensor<1x2x8x8xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %am = poot.select %bias, %a4, %mv : tensor<1x1x8x8xi1>, tensor<1x2x8x8xf32>, tensor<f32>
  %m = poot.reduce_max %am {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %d = poot.sub %am, %m : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %e = poot.exp %d : tensor<1x2x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x8x8xf32>
  %p = poot.div %e, %z : tensor<1x2x8x8xf32>, tensor<1x2x8x1xf32>
  %ph = poot.convert %p : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf16>
  %o = poot.matmul %ph, %v : tensor<1x2x8x8xf16>, tensor<1x2x8x64xf16>
  return %o : tensor<1x2x8x64xf16>
}
