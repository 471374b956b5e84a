// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Heads in the batch with GQA: keys and values [b, hkv, Lk, D] repeated by
// reshape/broadcast/reshape and flattened to [b*h, Lk, D] for bmm (the
// reshapes fold into one), q [b*h, Lq, D]; scores bmm(q, k^T) scaled, viewed
// as [b, h, q, k] to add a float mask [b, 1, q, k], softmax(dim=-1), viewed
// back for bmm with v. Moved up, the view regroups q and the keys under
// their transpose, where it composes with the repeat's reshapes back into
// repeat_kv on [b, hkv, Lk, D]. GQA 6/2, D = 96, B = 2, Lq = 3, Lk = 8.

// CHECK-LABEL: func.func @layout_bmm_gqa_mask
// CHECK-SAME: %[[Q:[^:]+]]: tensor<12x3x96xf32>, %[[K:[^:]+]]: tensor<2x2x8x96xf32>, %[[V:[^:]+]]: tensor<2x2x8x96xf32>, %[[M:[^:]+]]: tensor<2x1x3x8xf32>
// CHECK: %[[Q4:.+]] = poot.reshape %[[Q]] : tensor<12x3x96xf32> -> tensor<2x6x3x96xf32>
// out = softmax((q . k) * 96^-1/2 + mask) . v, query head h reads key head h / 3
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x3x8xf32>) {n_rep = 3 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<2x6x3x96xf32> -> tensor<12x3x96xf32>
// CHECK: return %[[R]]
func.func @layout_bmm_gqa_mask(%q: tensor<12x3x96xf32>, %k: tensor<2x2x8x96xf32>,
                               %v: tensor<2x2x8x96xf32>, %mask: tensor<2x1x3x8xf32>)
    -> tensor<12x3x96xf32> {
  %k5 = poot.reshape %k : tensor<2x2x8x96xf32> -> tensor<2x2x1x8x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 2, 3, 8, 96>} : tensor<2x2x1x8x96xf32>
  %kr = poot.reshape %kb : tensor<2x2x3x8x96xf32> -> tensor<2x6x8x96xf32>
  %k3 = poot.reshape %kr : tensor<2x6x8x96xf32> -> tensor<12x8x96xf32>
  %v5 = poot.reshape %v : tensor<2x2x8x96xf32> -> tensor<2x2x1x8x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 2, 3, 8, 96>} : tensor<2x2x1x8x96xf32>
  %vr = poot.reshape %vb : tensor<2x2x3x8x96xf32> -> tensor<2x6x8x96xf32>
  %v3 = poot.reshape %vr : tensor<2x6x8x96xf32> -> tensor<12x8x96xf32>
  %kt = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<12x8x96xf32>
  %s = poot.matmul %q, %kt : tensor<12x3x96xf32>, tensor<12x96x8xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<12x3x8xf32>, tensor<f32>
  %s4 = poot.reshape %ss : tensor<12x3x8xf32> -> tensor<2x6x3x8xf32>
  %sm = poot.add %s4, %mask : tensor<2x6x3x8xf32>, tensor<2x1x3x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x6x3x8xf32>
  %d = poot.sub %sm, %m : tensor<2x6x3x8xf32>, tensor<2x6x3x1xf32>
  %e = poot.exp %d : tensor<2x6x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x6x3x8xf32>
  %p = poot.div %e, %z : tensor<2x6x3x8xf32>, tensor<2x6x3x1xf32>
  %p3 = poot.reshape %p : tensor<2x6x3x8xf32> -> tensor<12x3x8xf32>
  %o = poot.matmul %p3, %v3 : tensor<12x3x8xf32>, tensor<12x8x96xf32>
  return %o : tensor<12x3x96xf32>
}
