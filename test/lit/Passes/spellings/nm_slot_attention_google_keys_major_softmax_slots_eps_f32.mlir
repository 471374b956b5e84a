// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, google-research Slot Attention (slot_attention/model.py,
// SlotAttention.call, one iteration, TF), f32, in its keys-major layout:
// q = project_q(norm_slots(slots)); q *= slot_size ** -0.5;
// attn_logits = tf.keras.backend.batch_dot(k, q, axes=-1), shape
// [B, num_inputs, num_slots]; attn = tf.nn.softmax(attn_logits, axis=-1):
// the LAST axis here is the slots (the queries), so each input's weight is
// shared out among the slots; attn += epsilon (1e-8); attn /=
// reduce_sum(attn, axis=-2, keepdims=True) renormalises over the inputs;
// updates = batch_dot(attn, v, axes=-2), i.e. attn^T @ v, [B, num_slots,
// slot_size]. The exp is normalised along the axis the product with v does
// not contract: not softmax attention of the slots over the inputs; must
// not fuse. B = 2, 8 inputs, 4 slots, slot_size 16.

// CHECK-LABEL: func.func @nm_slot_attention_google_keys_major_softmax_slots_eps_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: the numerator is not an exp
func.func @nm_slot_attention_google_keys_major_softmax_slots_eps_f32(
    %k: tensor<2x8x16xf32>, %q0: tensor<2x4x16xf32>, %v: tensor<2x8x16xf32>)
    -> tensor<2x4x16xf32> {
  // q *= self.slot_size ** -0.5
  %sc = poot.constant dense<2.500000e-01> : tensor<f32>
  %q = poot.mul %q0, %sc : tensor<2x4x16xf32>, tensor<f32>
  // attn_logits = batch_dot(k, q, axes=-1): [B, num_inputs, num_slots]
  %qt = poot.transpose %q {perm = array<i64: 0, 2, 1>} : tensor<2x4x16xf32>
  %lg = poot.matmul %k, %qt : tensor<2x8x16xf32>, tensor<2x16x4xf32>
  // tf.nn.softmax(attn_logits, axis=-1)
  %mx = poot.reduce_max %lg {axis = 2 : i64, keepdim} : tensor<2x8x4xf32>
  %d = poot.sub %lg, %mx : tensor<2x8x4xf32>, tensor<2x8x1xf32>
  %e = poot.exp %d : tensor<2x8x4xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x8x4xf32>
  %a0 = poot.div %e, %z : tensor<2x8x4xf32>, tensor<2x8x1xf32>
  // attn += self.epsilon; attn /= reduce_sum(attn, axis=-2, keepdims=True)
  %eps = poot.constant dense<9.99999993E-9> : tensor<f32>
  %a1 = poot.add %a0, %eps : tensor<2x8x4xf32>, tensor<f32>
  %as = poot.reduce_sum %a1 {axis = 1 : i64, keepdim} : tensor<2x8x4xf32>
  %a = poot.div %a1, %as : tensor<2x8x4xf32>, tensor<2x1x4xf32>
  // updates = batch_dot(attn, v, axes=-2)
  %at = poot.transpose %a {perm = array<i64: 0, 2, 1>} : tensor<2x8x4xf32>
  %u = poot.matmul %at, %v : tensor<2x4x8xf32>, tensor<2x8x16xf32>
  return %u : tensor<2x4x16xf32>
}
