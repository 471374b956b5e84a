// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss for GQA, a repeat_kv slip: k.repeat_interleave(2, dim=2) (the
// sequence axis) instead of dim=1 on [B, Hkv, L, D] with Hkv = Hq: every
// key appears twice. That is attention over the 8 repeated keys (the copies
// change the weights), not a head grouping: it must not fuse with n_rep > 1
// (n_rep 1 over the copies is right). MHA, B = 1, H = 2, Lq = 3, L = 4,
// D = 32.

// CHECK-LABEL: func.func @nm_repeat_interleave_seq_axis
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.17677{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777
func.func @nm_repeat_interleave_seq_axis(%q: tensor<1x2x3x32xf32>, %k: tensor<1x2x4x32xf32>,
                                         %v: tensor<1x2x4x32xf32>) -> tensor<1x2x3x32xf32> {
  %k5 = poot.reshape %k : tensor<1x2x4x32xf32> -> tensor<1x2x4x1x32xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 2, 32>} : tensor<1x2x4x1x32xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x2x32xf32> -> tensor<1x2x8x32xf32>
  %v5 = poot.reshape %v : tensor<1x2x4x32xf32> -> tensor<1x2x4x1x32xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 2, 32>} : tensor<1x2x4x1x32xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x2x32xf32> -> tensor<1x2x8x32xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x32xf32>, tensor<1x2x32x8xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %d = poot.sub %ss, %m : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %p = poot.div %e, %z : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x2x3x8xf32>, tensor<1x2x8x32xf32>
  return %o : tensor<1x2x3x32xf32>
}
