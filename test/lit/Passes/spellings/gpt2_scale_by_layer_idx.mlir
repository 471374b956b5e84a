// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF GPT2Attention._attn with scale_attn_weights and
// scale_attn_by_inverse_layer_idx (layer_idx = 2): w = q @ k^T;
// w = w / torch.full([], v.size(-1) ** 0.5); w = w / float(layer_idx + 1);
// causal_mask = self.bias[:, :, k - q : k, :k]; mask_value = finfo.min;
// w = torch.where(causal_mask, w.to(w.dtype), mask_value); softmax(dim=-1);
// w.type(v.dtype); @ v. A chunk of 5 queries after 3 cached keys, B = 1,
// H = 2, D = 64 (a buffer of 16 positions).

// CHECK-LABEL: func.func @gpt2_scale_by_layer_idx
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 0.04166{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.0416667, causal at offset 3
func.func @gpt2_scale_by_layer_idx(%q: tensor<1x2x5x64xf32>, %k: tensor<1x2x8x64xf32>,
                                   %v: tensor<1x2x8x64xf32>) -> tensor<1x2x5x64xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %cm = poot.slice %bias {start = array<i64: 0, 0, 3, 0>, limit = array<i64: 1, 1, 8, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xi1>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x64xf32>
  %w = poot.matmul %q, %kt : tensor<1x2x5x64xf32>, tensor<1x2x64x8xf32>
  %sd = poot.constant dense<8.0> : tensor<f32>
  %w1 = poot.div %w, %sd : tensor<1x2x5x8xf32>, tensor<f32>
  %li = poot.constant dense<3.0> : tensor<f32>
  %w2 = poot.div %w1, %li : tensor<1x2x5x8xf32>, tensor<f32>
  %mv = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %wm = poot.select %cm, %w2, %mv : tensor<1x1x5x8xi1>, tensor<1x2x5x8xf32>, tensor<f32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<1x2x5x8xf32>
  %d = poot.sub %wm, %m : tensor<1x2x5x8xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x8xf32>
  %p = poot.div %e, %z : tensor<1x2x5x8xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x8xf32>, tensor<1x2x8x64xf32>
  return %o : tensor<1x2x5x64xf32>
}
