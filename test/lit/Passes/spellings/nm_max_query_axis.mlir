// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, ONNX: ReduceMax over the wrong axis (axes=[2], the query rows)
// with the sum over the keys. The subtracted max differs from key to key
// along a row, so exp(x - m) / sum is no softmax of x; declined, and it
// runs unfused. MHA, B = 1, H = 2, L = 4, D = 16.

// CHECK-LABEL: func.func @nm_max_query_axis
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: softmax max over axis 2, expected the key axis 3{{$}}
func.func @nm_max_query_axis(%q: tensor<1x2x4x16xf32>, %k: tensor<1x2x4x16xf32>,
                             %v: tensor<1x2x4x16xf32>) -> tensor<1x2x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x16xf32>, tensor<1x2x16x4xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x4xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 2 : i64, keepdim} : tensor<1x2x4x4xf32>
  %d = poot.sub %ss, %m : tensor<1x2x4x4xf32>, tensor<1x2x1x4xf32>
  %e = poot.exp %d : tensor<1x2x4x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x4xf32>
  %p = poot.div %e, %z : tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<1x2x4x4xf32>, tensor<1x2x4x16xf32>
  return %o : tensor<1x2x4x16xf32>
}
