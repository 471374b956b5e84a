// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss of onnx_opset14_causal_trilu_table: the 0/1 float table
// compared Equal(mask, 0) has one lower entry cleared (row 5 hides key 2),
// so it is no band of col - row (every entry is checked) and the compare is
// not read as the causal condition: the mask stays a tensor. Its -inf
// cells still hold every key above the diagonal, so the band the table
// keeps at most is causal: read as well, the table added to it.

// CHECK-LABEL: func.func @nm_onnx_trilu_table_not_band
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x7x7xf32>) {causal, n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, tensor mask, causal; band read off the table's -inf cells{{$}}
func.func @nm_onnx_trilu_table_not_band(%q: tensor<2x3x7x40xf32>, %k: tensor<2x3x7x40xf32>,
                                        %v: tensor<2x3x7x40xf32>) -> tensor<2x3x7x40xf32> {
  %tri = poot.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]> : tensor<7x7xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %eq = poot.compare eq, %tri, %zero : tensor<7x7xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %am = poot.select %eq, %ninf, %zero : tensor<7x7xi1>, tensor<f32>, tensor<f32>
  %sc = poot.constant dense<0.397635471> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<2x3x7x40xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x7x40xf32>
  %ks = poot.mul %kt, %sc : tensor<2x3x40x7xf32>, tensor<f32>
  %s = poot.matmul %qs, %ks : tensor<2x3x7x40xf32>, tensor<2x3x40x7xf32>
  %sm = poot.add %s, %am : tensor<2x3x7x7xf32>, tensor<7x7xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x3x7x7xf32>
  %d = poot.sub %sm, %m : tensor<2x3x7x7xf32>, tensor<2x3x7x1xf32>
  %e = poot.exp %d : tensor<2x3x7x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x3x7x7xf32>
  %p = poot.div %e, %z : tensor<2x3x7x7xf32>, tensor<2x3x7x1xf32>
  %o = poot.matmul %p, %v : tensor<2x3x7x7xf32>, tensor<2x3x7x40xf32>
  return %o : tensor<2x3x7x40xf32>
}
