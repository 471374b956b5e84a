// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPTJAttention._attn: query = query.to(float32); key = key.to(float32);
// w = matmul(query, key.transpose(-1, -2)); causal_mask = self.bias[:, :,
// k - q : k, :k] (bool tril buffer); mask_value = torch.tensor(finfo(f32).min);
// w = torch.where(causal_mask, w, mask_value); w = w / self.scale_attn
// (sqrt(head_dim)): the mask comes BEFORE the scale. softmax(dim=-1);
// w.to(value.dtype); matmul(w, value). bf16 activations, prefill, B = 1,
// H = 4, L = 8, D = 64.

// CHECK-LABEL: func.func @gptj_mask_before_scale_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 1.250000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.125, causal
func.func @gptj_mask_before_scale_bf16(%q: tensor<1x4x8x64xbf16>, %k: tensor<1x4x8x64xbf16>,
                                       %v: tensor<1x4x8x64xbf16>) -> tensor<1x4x8x64xbf16> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]]]> : tensor<1x1x8x8xi1>
  %q32 = poot.convert %q : tensor<1x4x8x64xbf16> -> tensor<1x4x8x64xf32>
  %k32 = poot.convert %k : tensor<1x4x8x64xbf16> -> tensor<1x4x8x64xf32>
  %kt = poot.transpose %k32 {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x64xf32>
  %w = poot.matmul %q32, %kt : tensor<1x4x8x64xf32>, tensor<1x4x64x8xf32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %wm = poot.select %bias, %w, %mv : tensor<1x1x8x8xi1>, tensor<1x4x8x8xf32>, tensor<f32>
  %sc = poot.constant dense<8.0> : tensor<f32>
  %ws = poot.div %wm, %sc : tensor<1x4x8x8xf32>, tensor<f32>
  %m = poot.reduce_max %ws {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %d = poot.sub %ws, %m : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %e = poot.exp %d : tensor<1x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x8x8xf32>
  %p = poot.div %e, %z : tensor<1x4x8x8xf32>, tensor<1x4x8x1xf32>
  %pb = poot.convert %p : tensor<1x4x8x8xf32> -> tensor<1x4x8x8xbf16>
  %o = poot.matmul %pb, %v : tensor<1x4x8x8xbf16>, tensor<1x4x8x64xbf16>
  return %o : tensor<1x4x8x64xbf16>
}
