// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A chunked prefill over a fixed cache: query row i sits at pos + i, and key
// t is hidden where t > pos + i (an additive where(hidden, -inf, 0) mask built
// from iota and pos). GQA 8/2, D = 96, Lq = 4, Lk = 16.

// CHECK-LABEL: func.func @causal_pos_chunk
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x4x96xf32>, %[[K:[^:]+]]: tensor<1x2x16x96xf32>, %[[V:[^:]+]]: tensor<1x2x16x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// out = softmax((q . k) * 96^-1/2, keys t <= pos + i) . v
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_pos_chunk(%q: tensor<1x8x4x96xf32>, %k: tensor<1x2x16x96xf32>,
                            %v: tensor<1x2x16x96xf32>,
                            %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 13>})
    -> tensor<1x8x4x96xf32> {
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x4x1xi32>
  %qpos = poot.add %p4, %i : tensor<1x1x1x1xi32>, tensor<1x1x4x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %hid = poot.compare gt, %t, %qpos : tensor<1x1x1x16xi32>, tensor<1x1x4x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<1x1x4x16xf32>
  %zero = poot.constant dense<0.0> : tensor<1x1x4x16xf32>
  %mask = poot.select %hid, %ninf, %zero : tensor<1x1x4x16xi1>, tensor<1x1x4x16xf32>, tensor<1x1x4x16xf32>
  %k5 = poot.reshape %k : tensor<1x2x16x96xf32> -> tensor<1x2x1x16x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 16, 96>} : tensor<1x2x1x16x96xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x16x96xf32> -> tensor<1x8x16x96xf32>
  %v5 = poot.reshape %v : tensor<1x2x16x96xf32> -> tensor<1x2x1x16x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 16, 96>} : tensor<1x2x1x16x96xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x16x96xf32> -> tensor<1x8x16x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x16x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x8x4x96xf32>, tensor<1x8x96x16xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x8x4x16xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<1x8x4x16xf32>, tensor<1x1x4x16xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x8x4x16xf32>
  %d = poot.sub %sm, %m : tensor<1x8x4x16xf32>, tensor<1x8x4x1xf32>
  %e = poot.exp %d : tensor<1x8x4x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x4x16xf32>
  %p = poot.div %e, %z : tensor<1x8x4x16xf32>, tensor<1x8x4x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x8x4x16xf32>, tensor<1x8x16x96xf32>
  return %o : tensor<1x8x4x96xf32>
}
