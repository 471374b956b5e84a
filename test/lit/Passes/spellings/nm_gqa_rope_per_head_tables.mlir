// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: the keys are scaled after repeat_kv by a table with one row
// per query head, [1, Hq, L, D] (a per-head rotation or scaling): the
// copies of a key head stop being equal, so the repeat cannot move below
// it and the keys the matmul reads have their own head each. The values
// are repeated plainly. The attention reads the expanded keys and values
// (n_rep 1). Hq 4, Hkv 2, D = 96, decode at pos.

// CHECK-LABEL: func.func @nm_gqa_rope_per_head_tables
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x1x96xf32>, %[[K:[^:]+]]: tensor<1x2x8x96xf32>, %[[V:[^:]+]]: tensor<1x2x8x96xf32>, %[[T:[^:]+]]: tensor<1x4x8x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[KR:.+]] = poot.reshape %{{.+}} : tensor<1x2x2x8x96xf32> -> tensor<1x4x8x96xf32>
// CHECK: %[[VR:.+]] = poot.reshape %{{.+}} : tensor<1x2x2x8x96xf32> -> tensor<1x4x8x96xf32>
// CHECK: %[[KX:.+]] = poot.mul %[[KR]], %[[T]]
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[KX]], %[[VR]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.102062, causal from pos; key and value heads are mapped differently, so n_rep 1 over the repeated keys and values{{$}}
func.func @nm_gqa_rope_per_head_tables(%q: tensor<1x4x1x96xf32>, %k: tensor<1x2x8x96xf32>,
                                       %v: tensor<1x2x8x96xf32>, %tab: tensor<1x4x8x96xf32>,
                                       %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<1x4x1x96xf32> {
  %k5 = poot.reshape %k : tensor<1x2x8x96xf32> -> tensor<1x2x1x8x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 96>} : tensor<1x2x1x8x96xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x8x96xf32> -> tensor<1x4x8x96xf32>
  %v5 = poot.reshape %v : tensor<1x2x8x96xf32> -> tensor<1x2x1x8x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 8, 96>} : tensor<1x2x1x8x96xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x8x96xf32> -> tensor<1x4x8x96xf32>
  %kx = poot.mul %kr, %tab : tensor<1x4x8x96xf32>, tensor<1x4x8x96xf32>
  %kt = poot.transpose %kx {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x1x96xf32>, tensor<1x4x96x8xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x1x8xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x8xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %vis = poot.compare le, %t, %p4 : tensor<1x1x1x8xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x1x8xi1>, tensor<1x4x1x8xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %sm, %m : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x1x8xf32>, tensor<1x4x8x96xf32>
  return %o : tensor<1x4x1x96xf32>
}
