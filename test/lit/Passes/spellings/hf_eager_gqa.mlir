// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF eager LlamaAttention: repeat_kv by reshape/expand/reshape,
// w = (q @ k.transpose(2, 3)) * scaling + causal_mask (a float [B, 1, Lq, Lk]
// input), softmax(dim=-1), w @ v. GQA 8/2, D = 96, B = 2, Lq = 3.

// CHECK-LABEL: func.func @hf_eager_gqa
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x3x96xf32>, %[[K:[^:]+]]: tensor<2x2x16x96xf32>, %[[V:[^:]+]]: tensor<2x2x16x96xf32>, %[[M:[^:]+]]: tensor<2x1x3x16xf32>
// out = softmax(q.k * 96^-1/2 + mask) . v, query head h reads key head h / 4
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x16xf32>)
// CHECK-SAME: {n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @hf_eager_gqa(%q: tensor<2x8x3x96xf32>, %k: tensor<2x2x16x96xf32>,
                        %v: tensor<2x2x16x96xf32>, %mask: tensor<2x1x3x16xf32>)
    -> tensor<2x8x3x96xf32> {
  %k5 = poot.reshape %k : tensor<2x2x16x96xf32> -> tensor<2x2x1x16x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 4, 16, 96>} : tensor<2x2x1x16x96xf32>
  %kr = poot.reshape %kb : tensor<2x2x4x16x96xf32> -> tensor<2x8x16x96xf32>
  %v5 = poot.reshape %v : tensor<2x2x16x96xf32> -> tensor<2x2x1x16x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 4, 16, 96>} : tensor<2x2x1x16x96xf32>
  %vr = poot.reshape %vb : tensor<2x2x4x16x96xf32> -> tensor<2x8x16x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x16x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x3x96xf32>, tensor<2x8x96x16xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x3x16xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<2x8x3x16xf32>, tensor<2x1x3x16xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<2x8x3x16xf32>
  %d = poot.sub %sm, %m : tensor<2x8x3x16xf32>, tensor<2x8x3x1xf32>
  %e = poot.exp %d : tensor<2x8x3x16xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<2x8x3x16xf32>
  %p = poot.div %e, %z : tensor<2x8x3x16xf32>, tensor<2x8x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x3x16xf32>, tensor<2x8x16x96xf32>
  return %o : tensor<2x8x3x96xf32>
}
