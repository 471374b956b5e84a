// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.3x TFGPT2 TFAttention._attn (the OpenAI GPT-2
// model.py mask_attn_weights in the same form): w = tf.matmul(q, k,
// transpose_b=True) / sqrt(dk); b = causal_attention_mask(nd, ns) =
// cast(range(nd)[:, None] >= range(ns) - ns + nd), reshaped to [1, 1, nd,
// ns]; w = w * b - 1e4 * (1 - b); stable_softmax adds 1e-9 to the logits
// before tf.nn.softmax; tf.matmul(w, v). B = 1, H = 2, L = 5, D = 40.

// CHECK-LABEL: func.func @tf_gpt2_mul_mask_stable_softmax
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal
func.func @tf_gpt2_mul_mask_stable_softmax(%q: tensor<1x2x5x40xf32>, %k: tensor<1x2x5x40xf32>,
                                           %v: tensor<1x2x5x40xf32>) -> tensor<1x2x5x40xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x5x40xf32>
  %w0 = poot.matmul %q, %kt : tensor<1x2x5x40xf32>, tensor<1x2x40x5xf32>
  %sd = poot.constant dense<6.32455532> : tensor<f32>
  %w = poot.div %w0, %sd : tensor<1x2x5x5xf32>, tensor<f32>
  %ri = poot.iota {dim = 0 : i64} : tensor<5x1xi32>
  %cj = poot.iota {dim = 0 : i64} : tensor<5xi32>
  %off = poot.constant dense<0> : tensor<i32>
  %cjo = poot.add %cj, %off : tensor<5xi32>, tensor<i32>
  %m = poot.compare ge, %ri, %cjo : tensor<5x1xi32>, tensor<5xi32>
  %bf = poot.convert %m : tensor<5x5xi1> -> tensor<5x5xf32>
  %b = poot.reshape %bf : tensor<5x5xf32> -> tensor<1x1x5x5xf32>
  %wb = poot.mul %w, %b : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %nb = poot.sub %one, %b : tensor<f32>, tensor<1x1x5x5xf32>
  %big = poot.constant dense<1.0e+04> : tensor<f32>
  %pen = poot.mul %big, %nb : tensor<f32>, tensor<1x1x5x5xf32>
  %wm = poot.sub %wb, %pen : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32>
  %eps = poot.constant dense<1.0e-09> : tensor<f32>
  %we = poot.add %wm, %eps : tensor<1x2x5x5xf32>, tensor<f32>
  %mx = poot.reduce_max %we {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %d = poot.sub %we, %mx : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %p = poot.div %e, %z : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x5x5xf32>, tensor<1x2x5x40xf32>
  return %o : tensor<1x2x5x40xf32>
}
