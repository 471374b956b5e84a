// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN --allow-empty
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, apple/ml-sigmoid-attention attention_simulator/src/
// attention_simulator/layers/attention.py (Attention.forward with
// attn_activ_fn = sigmoid) and layers/masking.py (create_causal_mask:
// torch.tril(torch.ones(S, S)).bool(); softmax_masking_fn:
// attn.masked_fill(~mask, -finfo(f32).max)): q = q * head_dim**-0.5;
// attn = q @ k^T; masked; attn * torch.exp(attn_temp) with the buffer
// attn_temp = 0.0; attn + attn_bias with the buffer attn_bias = -log(S)
// (the paper's b = -log(n)); sigmoid(attn) (written 1 / (1 + exp(-x)));
// @ v. Each weight is squashed on its own, rows are not normalised: no
// softmax. Must decline. MHA, B = 1, H = 2, S = 8, D = 32.

// CHECK-LABEL: func.func @nm_apple_sigmoid_attention_causal_finfo_max_bias_f32
// CHECK-NOT: poot.attention
// CHECK: return
// EXPLAIN-NOT: remark: attention fused
func.func @nm_apple_sigmoid_attention_causal_finfo_max_bias_f32(
    %q: tensor<1x2x8x32xf32>, %k: tensor<1x2x8x32xf32>, %v: tensor<1x2x8x32xf32>) -> tensor<1x8x64xf32> {
  %tril = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<8x8xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %mask = poot.compare ne, %tril, %zf : tensor<8x8xf32>, tensor<f32>
  %sc = poot.constant dense<0.176776695> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<1x2x8x32xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x32xf32>
  %a0 = poot.matmul %qs, %kt : tensor<1x2x8x32xf32>, tensor<1x2x32x8xf32>
  // softmax_masking_fn: masked_fill(~mask, -finfo.max)
  %nm = poot.not %mask : tensor<8x8xi1>
  %nb = poot.broadcast %nm {shape = array<i64: 1, 2, 8, 8>} : tensor<8x8xi1>
  %fmax = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %a1 = poot.select %nb, %fmax, %a0 : tensor<1x2x8x8xi1>, tensor<f32>, tensor<1x2x8x8xf32>
  // attn * exp(attn_temp) + attn_bias
  %temp = poot.constant dense<0.0> : tensor<1xf32>
  %et = poot.exp %temp : tensor<1xf32>
  %a2 = poot.mul %a1, %et : tensor<1x2x8x8xf32>, tensor<1xf32>
  %bias = poot.constant dense<-2.07944155> : tensor<1xf32>
  %a3 = poot.add %a2, %bias : tensor<1x2x8x8xf32>, tensor<1xf32>
  // sigmoid
  %na = poot.neg %a3 : tensor<1x2x8x8xf32>
  %en = poot.exp %na : tensor<1x2x8x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %den = poot.add %en, %one : tensor<1x2x8x8xf32>, tensor<f32>
  %w = poot.div %one, %den : tensor<f32>, tensor<1x2x8x8xf32>
  %av = poot.matmul %w, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x32xf32>
  %at = poot.transpose %av {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x8x32xf32>
  %o = poot.reshape %at : tensor<1x8x2x32xf32> -> tensor<1x8x64xf32>
  return %o : tensor<1x8x64xf32>
}
