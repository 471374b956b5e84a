// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near-miss of a BLOOM-style ALiBi table: a constant bias [1, H, 1, Lk]
// that is slope * t in every head but one entry (head 1, key 3 is 0.8, not
// 0.75), as a table rounded on the way would be. It is not linear along
// the keys, so it is no ALiBi: it stays a tensor next to the proven causal
// mask. (Head 0 alone, slope 0.5, would read as ALiBi.) B = 1, H = 2,
// L = 4, D = 32.

// CHECK-LABEL: func.func @nm_alibi_table_not_linear
// CHECK-NOT: alibi_slopes
// CHECK: poot.attention {{.*}}mask({{.*}}causal
// CHECK-NOT: alibi_slopes
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176777, tensor mask, causal
func.func @nm_alibi_table_not_linear(%q: tensor<1x2x4x32xf32>, %k: tensor<1x2x4x32xf32>,
                                     %v: tensor<1x2x4x32xf32>) -> tensor<1x2x4x32xf32> {
  %bias = poot.constant dense<[[[[0.0, 0.5, 1.0, 1.5]], [[0.0, 0.25, 0.5, 0.8]]]]> : tensor<1x2x1x4xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x32xf32>, tensor<1x2x32x4xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %sb = poot.add %ss, %bias : tensor<1x2x4x4xf32>, tensor<1x2x1x4xf32>
  %seq = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %sr = poot.reshape %seq : tensor<4xi64> -> tensor<4x1xi64>
  %sc = poot.reshape %seq : tensor<4xi64> -> tensor<1x4xi64>
  %hid = poot.compare lt, %sr, %sc : tensor<4x1xi64>, tensor<1x4xi64>
  %h4 = poot.reshape %hid : tensor<4x4xi1> -> tensor<1x1x4x4xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %h4, %ninf, %sb : tensor<1x1x4x4xi1>, tensor<f32>, tensor<1x2x4x4xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %sm, %m : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x32xf32>
  return %o : tensor<1x2x4x32xf32>
}
