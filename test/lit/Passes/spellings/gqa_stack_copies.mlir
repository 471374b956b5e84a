// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// repeat_kv as copies stacked on a new axis after the key heads,
// torch.stack([k] * 3, dim=2).reshape(B, Hq, L, D): a concat of one
// unsqueezed tensor. Query head h reads key head h / 3. GQA 6/2, D = 96,
// B = 2, Lq = 2, Lk = 10, with a float [B, 1, Lq, Lk] mask.

// CHECK-LABEL: func.func @gqa_stack_copies
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x6x2x96xf32>, %[[K:[^:]+]]: tensor<2x2x10x96xf32>, %[[V:[^:]+]]: tensor<2x2x10x96xf32>, %[[M:[^:]+]]: tensor<2x1x2x10xf32>
// CHECK-NOT: poot.concat
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<2x1x2x10xf32>) {n_rep = 3 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @gqa_stack_copies(%q: tensor<2x6x2x96xf32>, %k: tensor<2x2x10x96xf32>,
                            %v: tensor<2x2x10x96xf32>, %mask: tensor<2x1x2x10xf32>)
    -> tensor<2x6x2x96xf32> {
  %k5 = poot.reshape %k : tensor<2x2x10x96xf32> -> tensor<2x2x1x10x96xf32>
  %kc = poot.concat %k5, %k5, %k5 {axis = 2 : i64} : tensor<2x2x1x10x96xf32>, tensor<2x2x1x10x96xf32>, tensor<2x2x1x10x96xf32>
  %kr = poot.reshape %kc : tensor<2x2x3x10x96xf32> -> tensor<2x6x10x96xf32>
  %v5 = poot.reshape %v : tensor<2x2x10x96xf32> -> tensor<2x2x1x10x96xf32>
  %vc = poot.concat %v5, %v5, %v5 {axis = 2 : i64} : tensor<2x2x1x10x96xf32>, tensor<2x2x1x10x96xf32>, tensor<2x2x1x10x96xf32>
  %vr = poot.reshape %vc : tensor<2x2x3x10x96xf32> -> tensor<2x6x10x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x6x10x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x6x2x96xf32>, tensor<2x6x96x10xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x6x2x10xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<2x6x2x10xf32>, tensor<2x1x2x10xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x6x2x10xf32>
  %d = poot.sub %sm, %m : tensor<2x6x2x10xf32>, tensor<2x6x2x1xf32>
  %e = poot.exp %d : tensor<2x6x2x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x6x2x10xf32>
  %p = poot.div %e, %z : tensor<2x6x2x10xf32>, tensor<2x6x2x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x6x2x10xf32>, tensor<2x6x10x96xf32>
  return %o : tensor<2x6x2x96xf32>
}
