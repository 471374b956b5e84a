// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// repeat_kv as a head gather (torch.index_select / jnp.take with a constant
// head map [0, 0, 0, 0, 1, 1, 1, 1]). GQA 8/2, B = 2, D = 40, Lq = 2.

// CHECK-LABEL: func.func @repeat_kv_gather
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x2x40xf32>, %[[K:[^:]+]]: tensor<2x2x12x40xf32>, %[[V:[^:]+]]: tensor<2x2x12x40xf32>
// query head h reads key head h / 4
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] {n_rep = 4 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.gather
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @repeat_kv_gather(%q: tensor<2x8x2x40xf32>, %k: tensor<2x2x12x40xf32>,
                            %v: tensor<2x2x12x40xf32>) -> tensor<2x8x2x40xf32> {
  %heads = poot.constant dense<[0, 0, 0, 0, 1, 1, 1, 1]> : tensor<8xi32>
  %kr = poot.gather %k[%heads] {axis = 1 : i64} : tensor<2x2x12x40xf32>, tensor<8xi32>
  %vr = poot.gather %v[%heads] {axis = 1 : i64} : tensor<2x2x12x40xf32>, tensor<8xi32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x12x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x2x40xf32>, tensor<2x8x40x12xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x2x12xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x8x2x12xf32>
  %d = poot.sub %ss, %m : tensor<2x8x2x12xf32>, tensor<2x8x2x1xf32>
  %e = poot.exp %d : tensor<2x8x2x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x2x12xf32>
  %p = poot.div %e, %z : tensor<2x8x2x12xf32>, tensor<2x8x2x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x2x12xf32>, tensor<2x8x12x40xf32>
  return %o : tensor<2x8x2x40xf32>
}
