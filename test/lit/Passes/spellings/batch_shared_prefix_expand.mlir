// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A shared key/value row spelled with explicit broadcasts of the batch
// axis (k.expand(B, -1, -1, -1), as Hugging Face code does for a prompt
// cache shared by B samples) before plain batched matmuls. The matmuls
// broadcast their batch dims themselves, so the broadcasts are dropped
// (poot-canonicalize), and the fused op reads the shared row once, the 3
// batch rows folded into the query heads. MHA 4 heads, D = 16, Lq = 5,
// Lk = 7, no mask.

// CHECK-LABEL: func.func @batch_shared_prefix_expand
// CHECK-SAME: %[[Q:[^:]+]]: tensor<3x4x5x16xf32>, %[[K:[^:]+]]: tensor<1x4x7x16xf32>, %[[V:[^:]+]]: tensor<1x4x7x16xf32>
// CHECK-NOT: poot.broadcast
// CHECK: poot.attention %{{.+}}, %[[K]], %[[V]] {n_rep = 3 : i64, scale = 2.500000e-01 : f64} : tensor<1x12x5x16xf32>, tensor<1x4x7x16xf32>, tensor<1x4x7x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
func.func @batch_shared_prefix_expand(%q: tensor<3x4x5x16xf32>, %k: tensor<1x4x7x16xf32>,
                                      %v: tensor<1x4x7x16xf32>) -> tensor<3x4x5x16xf32> {
  %kb = poot.broadcast %k {shape = array<i64: 3, 4, 7, 16>} : tensor<1x4x7x16xf32>
  %vb = poot.broadcast %v {shape = array<i64: 3, 4, 7, 16>} : tensor<1x4x7x16xf32>
  %kt = poot.transpose %kb {perm = array<i64: 0, 1, 3, 2>} : tensor<3x4x7x16xf32>
  %s = poot.matmul %q, %kt : tensor<3x4x5x16xf32>, tensor<3x4x16x7xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<3x4x5x7xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<3x4x5x7xf32>
  %d = poot.sub %ss, %m : tensor<3x4x5x7xf32>, tensor<3x4x5x1xf32>
  %e = poot.exp %d : tensor<3x4x5x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<3x4x5x7xf32>
  %p = poot.div %e, %z : tensor<3x4x5x7xf32>, tensor<3x4x5x1xf32>
  %o = poot.matmul %p, %vb : tensor<3x4x5x7xf32>, tensor<3x4x7x16xf32>
  return %o : tensor<3x4x5x16xf32>
}
