// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, Slot Attention (lucidrains/slot-attention
// slot_attention/slot_attention.py, SlotAttention.forward, one iteration):
// dots = einsum('bid,bjd->bij', q, k) * scale with q from the slots;
// attn = dots.softmax(dim=1) + eps, a softmax over the SLOTS (the query
// axis: slots compete for each input), then renormalised over the inputs,
// attn / attn.sum(dim=-1, keepdim=True); updates = einsum('bjd,bij->bid', v,
// attn). Not softmax over the keys; must not fuse. B = 2, 4 slots, 10
// inputs, d = 32, f32.

// CHECK-LABEL: func.func @nm_slot_attention_softmax_over_slots_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: the numerator is not an exp
func.func @nm_slot_attention_softmax_over_slots_f32(%q: tensor<2x4x32xf32>, %k: tensor<2x10x32xf32>,
                                                    %v: tensor<2x10x32xf32>) -> tensor<2x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x10x32xf32>
  %d0 = poot.matmul %q, %kt : tensor<2x4x32xf32>, tensor<2x32x10xf32>
  %sc = poot.constant dense<0.176776695> : tensor<f32>
  %dots = poot.mul %d0, %sc : tensor<2x4x10xf32>, tensor<f32>
  %m = poot.reduce_max %dots {axis = 1 : i64, keepdim} : tensor<2x4x10xf32>
  %d = poot.sub %dots, %m : tensor<2x4x10xf32>, tensor<2x1x10xf32>
  %e = poot.exp %d : tensor<2x4x10xf32>
  %z = poot.reduce_sum %e {axis = 1 : i64, keepdim} : tensor<2x4x10xf32>
  %sm = poot.div %e, %z : tensor<2x4x10xf32>, tensor<2x1x10xf32>
  %eps = poot.constant dense<9.99999993E-9> : tensor<f32>
  %a1 = poot.add %sm, %eps : tensor<2x4x10xf32>, tensor<f32>
  %s = poot.reduce_sum %a1 {axis = 2 : i64, keepdim} : tensor<2x4x10xf32>
  %attn = poot.div %a1, %s : tensor<2x4x10xf32>, tensor<2x4x1xf32>
  %upd = poot.matmul %attn, %v : tensor<2x4x10xf32>, tensor<2x10x32xf32>
  return %upd : tensor<2x4x32xf32>
}
