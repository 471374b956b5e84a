// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Heads in the batch before the 4-D view: keys [B * Hkv, L, D] repeated by
// torch.repeat_interleave(k, 4, dim=0) (a gather by arange(B * Hq) // 4),
// values by reshape/expand/reshape on the same flattened axis, each then
// viewed as [B, Hq, L, D]. The two spellings are one head map (query head
// h of row b reads key head h / 4 of row b). Causal at pos; GQA 8/2,
// D = 96, B = 2, Lq = 2, Lk = 12.

// CHECK-LABEL: func.func @gqa_rank3_repeat
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x2x96xf32>, %[[K:[^:]+]]: tensor<4x12x96xf32>, %[[V:[^:]+]]: tensor<4x12x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-DAG: %[[K4:.+]] = poot.reshape %[[K]] : tensor<4x12x96xf32> -> tensor<2x2x12x96xf32>
// CHECK-DAG: %[[V4:.+]] = poot.reshape %[[V]] : tensor<4x12x96xf32> -> tensor<2x2x12x96xf32>
// CHECK-NOT: poot.{{gather|broadcast}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K4]], %[[V4]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @gqa_rank3_repeat(%q: tensor<2x8x2x96xf32>, %k: tensor<4x12x96xf32>,
                            %v: tensor<4x12x96xf32>,
                            %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 11>})
    -> tensor<2x8x2x96xf32> {
  %h = poot.iota {dim = 0 : i64} : tensor<16xi32>
  %n = poot.constant dense<4> : tensor<i32>
  %idx = poot.div %h, %n : tensor<16xi32>, tensor<i32>
  %k3 = poot.gather %k[%idx] {axis = 0 : i64} : tensor<4x12x96xf32>, tensor<16xi32>
  %kr = poot.reshape %k3 : tensor<16x12x96xf32> -> tensor<2x8x12x96xf32>
  %v1 = poot.reshape %v : tensor<4x12x96xf32> -> tensor<4x1x12x96xf32>
  %vb = poot.broadcast %v1 {shape = array<i64: 4, 4, 12, 96>} : tensor<4x1x12x96xf32>
  %v3 = poot.reshape %vb : tensor<4x4x12x96xf32> -> tensor<16x12x96xf32>
  %vr = poot.reshape %v3 : tensor<16x12x96xf32> -> tensor<2x8x12x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x8x12x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x8x2x96xf32>, tensor<2x8x96x12xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x2x12xf32>, tensor<f32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x2x1xi32>
  %qp = poot.add %p4, %i : tensor<1x1x1x1xi32>, tensor<1x1x2x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x12xi32>
  %vis = poot.compare le, %t, %qp : tensor<1x1x1x12xi32>, tensor<1x1x2x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x2x12xi1>, tensor<2x8x2x12xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x8x2x12xf32>
  %d = poot.sub %sm, %m : tensor<2x8x2x12xf32>, tensor<2x8x2x1xf32>
  %e = poot.exp %d : tensor<2x8x2x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x2x12xf32>
  %p = poot.div %e, %z : tensor<2x8x2x12xf32>, tensor<2x8x2x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x2x12xf32>, tensor<2x8x12x96xf32>
  return %o : tensor<2x8x2x96xf32>
}
