// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss of the Keras Attention layer's subtracted mask: scores -=
// -4 * cast(logical_not(causal)) adds 4 to every future key, so the
// future keys gain weight instead of losing it. The subtraction is the
// added select(!causal, 4, 0): a tensor mask with a positive value, never
// read as causal. Fuses only with the tensor mask (what the graph adds) and
// matches the unfused graph. B = 2, T = 5, D = 16.

// CHECK-LABEL: func.func @nm_keras_sub_negative_fill_raises_hidden
// CHECK-NOT: causal
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}}) {n_rep = 1 : i64, scale = 3.750000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.375, tensor mask
func.func @nm_keras_sub_negative_fill_raises_hidden(%q: tensor<2x5x16xf32>, %k: tensor<2x5x16xf32>,
                                                    %v: tensor<2x5x16xf32>) -> tensor<2x5x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<2x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x5x16xf32>, tensor<2x16x5xf32>
  %c = poot.constant dense<0.375> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x5x5xf32>, tensor<f32>
  %band = poot.constant dense<[[[1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0]]]> : tensor<1x5x5xf32>
  %bz = poot.constant dense<0.0> : tensor<f32>
  %cm = poot.compare ne, %band, %bz : tensor<1x5x5xf32>, tensor<f32>
  %pm = poot.not %cm : tensor<1x5x5xi1>
  %pf = poot.convert %pm : tensor<1x5x5xi1> -> tensor<1x5x5xf32>
  %big = poot.constant dense<-4.0> : tensor<f32>
  %adder = poot.mul %pf, %big : tensor<1x5x5xf32>, tensor<f32>
  %sm = poot.sub %ss, %adder : tensor<2x5x5xf32>, tensor<1x5x5xf32>
  %m = poot.reduce_max %sm {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %d = poot.sub %sm, %m : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %e = poot.exp %d : tensor<2x5x5xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x5x5xf32>
  %p = poot.div %e, %z : tensor<2x5x5xf32>, tensor<2x5x1xf32>
  %o = poot.matmul %p, %v : tensor<2x5x5xf32>, tensor<2x5x16xf32>
  return %o : tensor<2x5x16xf32>
}
