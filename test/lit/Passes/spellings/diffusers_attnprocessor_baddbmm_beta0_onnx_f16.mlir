// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// diffusers AttnProcessor (huggingface/diffusers
// src/diffusers/models/attention_processor.py, Attention.get_attention_scores
// and AttnProcessor.__call__) with upcast_attention (SD 2.x cross
// attention), as torch.onnx exports it: head_to_batch_dim views q, k, v
// [B*h, L, d]; query.float(), key.float(); with no mask baddbmm_input =
// torch.empty(B*h, Lq, Lk) (exported as ConstantOfShape, zeros) and beta = 0;
// torch.baddbmm(input, q, k^T, beta=0, alpha=scale) is exported as
// Add(Mul(MatMul(q, k^T), alpha), Mul(input, beta)); softmax(dim=-1) in f32;
// .to(f16); torch.bmm(probs, value) with the f16 value; batch_to_head_dim.
// B = 2 (classifier-free guidance pair), h = 4, d = 40, Lq = 16 latents,
// Lk = 8 text tokens.

// CHECK-LABEL: func.func @diffusers_attnprocessor_baddbmm_beta0_onnx_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64} : tensor<1x8x16x40xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114{{$}}
func.func @diffusers_attnprocessor_baddbmm_beta0_onnx_f16(%q: tensor<8x16x40xf16>, %k: tensor<8x8x40xf16>,
                                                          %v: tensor<8x8x40xf16>) -> tensor<2x16x160xf16> {
  %qf = poot.convert %q : tensor<8x16x40xf16> -> tensor<8x16x40xf32>
  %kf = poot.convert %k : tensor<8x8x40xf16> -> tensor<8x8x40xf32>
  %empty = poot.constant dense<0.0> : tensor<8x16x8xf32>
  %kt = poot.transpose %kf {perm = array<i64: 0, 2, 1>} : tensor<8x8x40xf32>
  %bmm = poot.matmul %qf, %kt : tensor<8x16x40xf32>, tensor<8x40x8xf32>
  %alpha = poot.constant dense<0.158113882> : tensor<f32>
  %beta = poot.constant dense<0.0> : tensor<f32>
  %ma = poot.mul %bmm, %alpha : tensor<8x16x8xf32>, tensor<f32>
  %mb = poot.mul %empty, %beta : tensor<8x16x8xf32>, tensor<f32>
  %s = poot.add %ma, %mb : tensor<8x16x8xf32>, tensor<8x16x8xf32>
  %m = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<8x16x8xf32>
  %d = poot.sub %s, %m : tensor<8x16x8xf32>, tensor<8x16x1xf32>
  %e = poot.exp %d : tensor<8x16x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<8x16x8xf32>
  %p = poot.div %e, %z : tensor<8x16x8xf32>, tensor<8x16x1xf32>
  %ph = poot.convert %p : tensor<8x16x8xf32> -> tensor<8x16x8xf16>
  %h = poot.matmul %ph, %v : tensor<8x16x8xf16>, tensor<8x8x40xf16>
  %h4 = poot.reshape %h : tensor<8x16x40xf16> -> tensor<2x4x16x40xf16>
  %ht = poot.transpose %h4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x16x40xf16>
  %o = poot.reshape %ht : tensor<2x16x4x40xf16> -> tensor<2x16x160xf16>
  return %o : tensor<2x16x160xf16>
}
