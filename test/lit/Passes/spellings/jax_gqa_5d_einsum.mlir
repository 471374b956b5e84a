// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Grouped-query attention as JAX writes it on [B, L, H, D] activations: q
// reshaped to [B, Lq, Hkv, n, D], einsum('BTKGH,BSKH->BKGTS') lowers to
// q.transpose(0, 2, 3, 1, 4) @ k.transpose(0, 2, 3, 1)[:, :, None] (the
// matmul spreads each key head over its n query heads), a causal
// where(tril, s, -0.7 * finfo.max), and einsum('BKGTS,BSKH->BTKGH') to p @
// v[:, :, :, None].transpose(0, 2, 3, 1, 4), transposed and reshaped back.
// Hq = 6, Hkv = 2, B = 2, D = 40, Lq = Lk = 5 (prefill).

// CHECK-LABEL: func.func @jax_gqa_5d_einsum
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x5x6x40xf32>, %[[K:[^:]+]]: tensor<2x5x2x40xf32>, %[[V:[^:]+]]: tensor<2x5x2x40xf32>
// the (Hkv, n) query heads flattened: head h reads key head h / 3
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %{{.+}} : tensor<2x2x3x5x40xf32> -> tensor<2x6x5x40xf32>
// CHECK-DAG: %[[KH:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[VH:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>}
// out = softmax((q . k) * 40^-1/2, keys t <= i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[KH]], %[[VH]] {causal, n_rep = 3 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.reshape %[[O]] : tensor<2x6x5x40xf32> -> tensor<2x2x3x5x40xf32>
func.func @jax_gqa_5d_einsum(%q: tensor<2x5x6x40xf32>, %k: tensor<2x5x2x40xf32>,
                             %v: tensor<2x5x2x40xf32>) -> tensor<2x5x6x40xf32> {
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %qs = poot.mul %q, %c : tensor<2x5x6x40xf32>, tensor<f32>
  %qg = poot.reshape %qs : tensor<2x5x6x40xf32> -> tensor<2x5x2x3x40xf32>
  %qh = poot.transpose %qg {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<2x5x2x3x40xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x5x2x40xf32>
  %kg = poot.reshape %kt : tensor<2x2x40x5xf32> -> tensor<2x2x1x40x5xf32>
  %s = poot.matmul %qh, %kg : tensor<2x2x3x5x40xf32>, tensor<2x2x1x40x5xf32>
  %row = poot.iota {dim = 0 : i64} : tensor<5x5xi32>
  %col = poot.iota {dim = 1 : i64} : tensor<5x5xi32>
  %tril = poot.compare ge, %row, %col : tensor<5x5xi32>, tensor<5x5xi32>
  %mask = poot.reshape %tril : tensor<5x5xi1> -> tensor<1x1x1x5x5xi1>
  %big = poot.constant dense<-2.38197633e+38> : tensor<f32>
  %sm = poot.select %mask, %s, %big : tensor<1x1x1x5x5xi1>, tensor<2x2x3x5x5xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 4 : i64, keepdim} : tensor<2x2x3x5x5xf32>
  %d = poot.sub %sm, %m : tensor<2x2x3x5x5xf32>, tensor<2x2x3x5x1xf32>
  %e = poot.exp %d : tensor<2x2x3x5x5xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<2x2x3x5x5xf32>
  %p = poot.div %e, %z : tensor<2x2x3x5x5xf32>, tensor<2x2x3x5x1xf32>
  %vg = poot.reshape %v : tensor<2x5x2x40xf32> -> tensor<2x5x2x1x40xf32>
  %vh = poot.transpose %vg {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<2x5x2x1x40xf32>
  %og = poot.matmul %p, %vh : tensor<2x2x3x5x5xf32>, tensor<2x2x1x5x40xf32>
  %ot = poot.transpose %og {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<2x2x3x5x40xf32>
  %o = poot.reshape %ot : tensor<2x5x2x3x40xf32> -> tensor<2x5x6x40xf32>
  return %o : tensor<2x5x6x40xf32>
}
