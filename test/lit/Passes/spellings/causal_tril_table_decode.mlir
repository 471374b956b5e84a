// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A registered causal buffer, tril(ones(16, 16)) as bool, sliced at the
// decode position (bias[:, :, pos : pos + 1, :Lk], a dynamic_slice) and
// applied as where(bias, w, -inf). Every entry of the table is checked to
// be the band t <= row, the slice start is proven inside the table by
// pos's declared range (so the clamp of dynamic_slice never acts), and
// the slice reads as causal from pos. GQA 8/2, D = 96, Lk = 16.

// CHECK-LABEL: func.func @causal_tril_table_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x8x1x96xf32>, %[[K:[^:]+]]: tensor<1x2x16x96xf32>, %[[V:[^:]+]]: tensor<1x2x16x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-NOT: poot.{{dynamic_slice|select}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_tril_table_decode(%q: tensor<1x8x1x96xf32>, %k: tensor<1x2x16x96xf32>,
                                    %v: tensor<1x2x16x96xf32>,
                                    %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<1x8x1x96xf32> {
  %bias = poot.constant dense<[[[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]]]> : tensor<1x1x16x16xi1>
  %zero = poot.constant dense<0> : tensor<i32>
  %cm = poot.dynamic_slice %bias[%zero, %zero, %pos, %zero] {sizes = array<i64: 1, 1, 1, 16>} : tensor<1x1x16x16xi1>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<i32>
  %k5 = poot.reshape %k : tensor<1x2x16x96xf32> -> tensor<1x2x1x16x96xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 4, 16, 96>} : tensor<1x2x1x16x96xf32>
  %kr = poot.reshape %kb : tensor<1x2x4x16x96xf32> -> tensor<1x8x16x96xf32>
  %v5 = poot.reshape %v : tensor<1x2x16x96xf32> -> tensor<1x2x1x16x96xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 4, 16, 96>} : tensor<1x2x1x16x96xf32>
  %vr = poot.reshape %vb : tensor<1x2x4x16x96xf32> -> tensor<1x8x16x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x8x16x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x8x1x96xf32>, tensor<1x8x96x16xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %w = poot.mul %s, %c : tensor<1x8x1x16xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %cm, %w, %ninf : tensor<1x1x1x16xi1>, tensor<1x8x1x16xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x8x1x16xf32>
  %d = poot.sub %sm, %m : tensor<1x8x1x16xf32>, tensor<1x8x1x1xf32>
  %e = poot.exp %d : tensor<1x8x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x8x1x16xf32>
  %p = poot.div %e, %z : tensor<1x8x1x16xf32>, tensor<1x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x8x1x16xf32>, tensor<1x8x16x96xf32>
  return %o : tensor<1x8x1x96xf32>
}
