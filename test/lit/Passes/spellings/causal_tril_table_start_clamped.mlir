// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.
// RUN: poot-run %t.mlir --check --ref=%s --quiet --set=pos=15
// RUN: poot-run %t.mlir --check --ref=%s --quiet --set=pos=12

// The tril buffer sliced for 4 rows at pos, with pos declared in [0, 15]:
// dynamic_slice clamps its start into [0, 12], so for pos past 12 the rows
// read are 12..15 whatever pos is, and the mask is not causal from pos.
// The band form keeps the clamp (min/max around pos, no range proves it
// idle) and the mask is causal from the clamped start, which the fused op
// takes as its position. Checked also at pos = 15 and 12. D = 96, Lk = 16.

// CHECK-LABEL: func.func @causal_tril_table_start_clamped
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x4x96xf32>, %[[K:[^:]+]]: tensor<1x2x16x96xf32>, %[[V:[^:]+]]: tensor<1x2x16x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// the clamp dynamic_slice applies to its start: max(min(pos, 12), 0)
// (in pos's own type)
// CHECK-DAG: %[[ZERO:.+]] = poot.constant dense<0> : tensor<i32>
// CHECK-DAG: %[[HI:.+]] = poot.constant dense<12> : tensor<i32>
// CHECK: %[[MIN:.+]] = poot.min %[[POS]], %[[HI]]
// CHECK: %[[START:.+]] = poot.max %[[MIN]], %[[ZERO]]
// CHECK-NOT: poot.{{dynamic_slice|select}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[START]] : tensor<i32>) {causal, n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_tril_table_start_clamped(%q: tensor<1x2x4x96xf32>, %k: tensor<1x2x16x96xf32>,
                                         %vr: tensor<1x2x16x96xf32>,
                                         %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<1x2x4x96xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %zero = poot.constant dense<0> : tensor<i32>
  %cm = poot.dynamic_slice %bias[%zero, %zero, %pos, %zero] {sizes = array<i64: 1, 1, 4, 16>} : tensor<1x1x16x16xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x16x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x96xf32>, tensor<1x2x96x16xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %w = poot.mul %s, %c : tensor<1x2x4x16xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %cm, %w, %ninf : tensor<1x1x4x16xi1>, tensor<1x2x4x16xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %p = poot.div %e, %z : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x2x4x16xf32>, tensor<1x2x16x96xf32>
  return %o : tensor<1x2x4x96xf32>
}
