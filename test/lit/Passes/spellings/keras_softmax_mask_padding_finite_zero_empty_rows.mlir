// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}
// RUN: poot-run %t.mlir --set=keep=0,0,0,0,0,0,1,0,1,1,0,1 --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --set=keep=0,0,0,0,0,0,1,0,1,1,0,1 --check --ref=%s --quiet %}

// Keras 3's masked Softmax layer (keras/src/layers/activations/softmax.py:
// where(mask, x, -1e9), softmax, where(mask, p, 0)) inside a hand-written
// attention, with the mask a key-padding input [B, 1, 1, S] the caller
// passes. On a row that keeps a key the -1e9 fill's weights underflow to
// exactly 0; a row whose keys are all padded is uniform over them after
// the fill and then zeroed by the trailing where. The padding is the one
// mask and the trailing where repeats it, so the fill is the -inf tensor
// mask under zero_empty_rows. The second check binds a mask that pads
// every key of batch row 0.
//
// Strongest form: the padding as a tensor mask, zero_empty_rows.
// CHECK-LABEL: func.func @keras_softmax_mask_padding_finite_zero_empty_rows
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x6x6xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64, zero_empty_rows}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask; rows with no visible key are 0, as 'poot.select' at line {{[0-9]+}} makes them{{$}}
func.func @keras_softmax_mask_padding_finite_zero_empty_rows(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>,
                                                %v: tensor<2x4x6x16xf32>, %keep: tensor<2x1x1x6xi1> {poot.name = "keep"}) -> tensor<2x4x6x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x6x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x4x6x6xf32>, tensor<f32>
  %big = poot.constant dense<-1.0e+09> : tensor<f32>
  %x = poot.select %keep, %s, %big : tensor<2x1x1x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %d = poot.sub %x, %m : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %e = poot.exp %d : tensor<2x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %sm = poot.div %e, %z : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %p = poot.select %keep, %sm, %zero : tensor<2x1x1x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>
  %o = poot.matmul %p, %v : tensor<2x4x6x6xf32>, tensor<2x4x6x16xf32>
  return %o : tensor<2x4x6x16xf32>
}
