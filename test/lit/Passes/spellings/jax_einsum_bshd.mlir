// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX/Flax on [B, L, H, D] activations: einsum('bqhd,bkhd->bhqk') lowers to
// q.transpose(0, 2, 1, 3) @ k.transpose(0, 2, 3, 1) (K transposed inside one
// permute); causal mask from iota(q) >= iota(k) selected with -inf;
// einsum('bhqk,bkhd->bqhd') to p @ v.transpose(0, 2, 1, 3), transposed back.
// D = 40, Lq = Lk = 6 (prefill).

// CHECK-LABEL: func.func @jax_einsum_bshd
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x6x4x40xf32>, %[[K:[^:]+]]: tensor<1x6x4x40xf32>, %[[V:[^:]+]]: tensor<1x6x4x40xf32>
// CHECK-DAG: %[[QH:.+]] = poot.transpose %[[Q]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[KH:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[VH:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>}
// out = softmax((q . k) * 40^-1/2, keys t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QH]], %[[KH]], %[[VH]] {causal, n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>}
func.func @jax_einsum_bshd(%q: tensor<1x6x4x40xf32>, %k: tensor<1x6x4x40xf32>,
                           %v: tensor<1x6x4x40xf32>) -> tensor<1x6x4x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<1x6x4x40xf32>, tensor<f32>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x40xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x6x4x40xf32>
  %s = poot.matmul %qh, %kt : tensor<1x4x6x40xf32>, tensor<1x4x40x6xf32>
  %row = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %col = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %tril = poot.compare ge, %row, %col : tensor<6x6xi32>, tensor<6x6xi32>
  %mask = poot.reshape %tril : tensor<6x6xi1> -> tensor<1x1x6x6xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %mask, %s, %ninf : tensor<1x1x6x6xi1>, tensor<1x4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %sm, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x40xf32>
  %oh = poot.matmul %p, %vh : tensor<1x4x6x6xf32>, tensor<1x4x6x40xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x40xf32>
  return %o : tensor<1x6x4x40xf32>
}
