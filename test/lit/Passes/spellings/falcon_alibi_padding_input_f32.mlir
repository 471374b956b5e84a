// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF FalconAttention 4.33 eager, ALiBi branch, a padded batch in f32:
// build_alibi_tensor(attention_mask, H) takes the slopes times
// ((attention_mask.cumsum(-1) - 1) * attention_mask), so with left padding
// the bias differs per batch row and is computed at run time: an input
// [B, H, 1, kv] here, as is attention_mask_float [B, 1, q, kv] (the
// causal-and-padding mask, 0 or -1e9). attention_logits = (q @ k^T +
// alibi) * inv_norm_factor; softmax(attention_logits + attention_mask_float);
// @ v. B = 2, H = 4, q = kv = 6, D = 16.

// The bias is distributed over the scale: the fused op adds alibi * c (an
// op of its own on the small bias) and the mask.
// CHECK-LABEL: func.func @falcon_alibi_padding_input_f32
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x6x16xf32>, %[[K:[^:]+]]: tensor<2x4x6x16xf32>, %[[V:[^:]+]]: tensor<2x4x6x16xf32>, %[[ALIBI:[^:]+]]: tensor<2x4x1x6xf32>, %[[MASK:[^:]+]]: tensor<2x1x6x6xf32>
// CHECK-DAG: %[[C:.+]] = poot.constant dense<2.500000e-01> : tensor<f32>
// CHECK-DAG: %[[AC:.+]] = poot.mul %[[ALIBI]], %[[C]] : tensor<2x4x1x6xf32>, tensor<f32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%{{.+}} : tensor<2x4x6x6xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; a bias added before the scale, multiplied by it{{$}}
func.func @falcon_alibi_padding_input_f32(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>,
                                          %v: tensor<2x4x6x16xf32>, %alibi: tensor<2x4x1x6xf32>,
                                          %mask: tensor<2x1x6x6xf32>) -> tensor<2x4x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>
  %sa = poot.add %s, %alibi : tensor<2x4x6x6xf32>, tensor<2x4x1x6xf32>
  %inv = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %sa, %inv : tensor<2x4x6x6xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<2x4x6x6xf32>, tensor<2x1x6x6xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %d = poot.sub %sm, %m : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %e = poot.exp %d : tensor<2x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %p = poot.div %e, %z : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x6x6xf32>, tensor<2x4x6x16xf32>
  return %o : tensor<2x4x6x16xf32>
}
