// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// repeat_kv done in the [B, L, Hkv, D] layout a cache is kept in, before
// the head transpose (JAX/Flax, MLX): k[:, :, :, None].repeat(n) as
// reshape -> broadcast -> reshape on the head axis 2, then
// transpose(0, 2, 1, 3) for the heads-first matmuls. Decode (Lq = 1) at
// pos. GQA 8/2, D = 96, B = 2, Lk = 16.

// CHECK-LABEL: func.func @layout_gqa_repeat_blhd_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x1x8x96xf32>, %[[K:[^:]+]]: tensor<2x16x2x96xf32>, %[[V:[^:]+]]: tensor<2x16x2x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// the repeats move below the head transposes: k and v are read once, as
// transpose(k) [B, Hkv, L, D]
// CHECK-DAG: %[[QH:.+]] = poot.transpose %[[Q]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK-DAG: %[[KH:.+]] = poot.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x96xf32>
// CHECK-DAG: %[[VH:.+]] = poot.transpose %[[V]] {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x96xf32>
// CHECK-NOT: poot.broadcast
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[QH]], %[[KH]], %[[VH]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64} : tensor<2x8x1x96xf32>, tensor<2x2x16x96xf32>, tensor<2x2x16x96xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @layout_gqa_repeat_blhd_decode(%q: tensor<2x1x8x96xf32>, %k: tensor<2x16x2x96xf32>,
                                         %v: tensor<2x16x2x96xf32>,
                                         %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<2x8x1x96xf32> {
  %k5 = poot.reshape %k : tensor<2x16x2x96xf32> -> tensor<2x16x2x1x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 2, 16, 2, 4, 96>} : tensor<2x16x2x1x96xf32>
  %kr = poot.reshape %kb : tensor<2x16x2x4x96xf32> -> tensor<2x16x8x96xf32>
  %v5 = poot.reshape %v : tensor<2x16x2x96xf32> -> tensor<2x16x2x1x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 2, 16, 2, 4, 96>} : tensor<2x16x2x1x96xf32>
  %vr = poot.reshape %vb : tensor<2x16x2x4x96xf32> -> tensor<2x16x8x96xf32>
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x1x8x96xf32>
  %kh = poot.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x8x96xf32>
  %vh = poot.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x8x96xf32>
  %kt = poot.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x16x96xf32>
  %s = poot.matmul %qh, %kt : tensor<2x8x1x96xf32>, tensor<2x8x96x16xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x1x16xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %vis = poot.compare le, %t, %p4 : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x1x16xi1>, tensor<2x8x1x16xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %d = poot.sub %sm, %m : tensor<2x8x1x16xf32>, tensor<2x8x1x1xf32>
  %e = poot.exp %d : tensor<2x8x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %p = poot.div %e, %z : tensor<2x8x1x16xf32>, tensor<2x8x1x1xf32>
  %o = poot.matmul %p, %vh : tensor<2x8x1x16xf32>, tensor<2x8x16x96xf32>
  return %o : tensor<2x8x1x96xf32>
}
