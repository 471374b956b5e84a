// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// torch.repeat_interleave(k, 4, dim=1) as exported: a gather along the head
// axis with the index computed in the graph, arange(Hq) // n_rep.
// GQA 8/2, D = 96, decode (Lq = 1), causal from pos.

// CHECK-LABEL: func.func @repeat_interleave_iota
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x1x96xf32>, %[[K:[^:]+]]: tensor<1x2x24x96xf32>, %[[V:[^:]+]]: tensor<1x2x24x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.gather
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @repeat_interleave_iota(%q: tensor<1x8x1x96xf32>, %k: tensor<1x2x24x96xf32>,
                                  %v: tensor<1x2x24x96xf32>,
                                  %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 24>})
    -> tensor<1x8x1x96xf32> {
  %h = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %n = poot.constant dense<4> : tensor<i64>
  %heads = poot.div %h, %n : tensor<8xi64>, tensor<i64>
  %kr = poot.gather %k[%heads] {axis = 1 : i64} : tensor<1x2x24x96xf32>, tensor<8xi64>
  %vr = poot.gather %v[%heads] {axis = 1 : i64} : tensor<1x2x24x96xf32>, tensor<8xi64>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x24x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x8x1x96xf32>, tensor<1x8x96x24xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x8x1x24xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x24xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %vis = poot.compare le, %t, %p4 : tensor<1x1x1x24xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x1x24xi1>, tensor<1x8x1x24xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x8x1x24xf32>
  %d = poot.sub %sm, %m : tensor<1x8x1x24xf32>, tensor<1x8x1x1xf32>
  %e = poot.exp %d : tensor<1x8x1x24xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x1x24xf32>
  %p = poot.div %e, %z : tensor<1x8x1x24xf32>, tensor<1x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x8x1x24xf32>, tensor<1x8x24x96xf32>
  return %o : tensor<1x8x1x96xf32>
}
