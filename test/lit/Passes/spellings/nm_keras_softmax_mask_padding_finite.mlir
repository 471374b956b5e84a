// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss for Keras 3's masked Softmax layer: where(mask, x, -1e9),
// softmax, where(mask, p, 0), with the mask a padding input (a key mask
// [B, 1, 1, S] the caller passes). A row whose keys are all padded is
// uniform over them after the -1e9 fill and then zeroed by the trailing
// where; nothing proves every row keeps a key, so the fill is not exactly
// -inf and the trailing where may fire: declined, runs unfused.

// CHECK-LABEL: func.func @nm_keras_softmax_mask_padding_finite
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: 'poot.select' at line {{[0-9]+}} masks the probabilities after the softmax by a condition the scores are selected with by a finite fill that is not proven to hide its keys exactly
func.func @nm_keras_softmax_mask_padding_finite(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x6x16xf32>,
                                                %v: tensor<2x4x6x16xf32>, %keep: tensor<2x1x1x6xi1>) -> tensor<2x4x6x16xf32> {
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
