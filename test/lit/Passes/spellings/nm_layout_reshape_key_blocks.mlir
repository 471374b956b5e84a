// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss: the keys are split into blocks, [b, h, q, k] reshaped to
// [b, h, q, k / 4, 4], and the softmax runs within each block of 4 keys,
// then the probabilities are reshaped back for P . V. Each row is
// normalised per block, not over all its keys: no attention. The reshape
// changes the key axis, so it stays where it is and the matcher names it.
// Declined; runs unfused. MHA, B = 1, H = 2, Lq = 3, Lk = 8, D = 16.

// CHECK-LABEL: func.func @nm_layout_reshape_key_blocks
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_layout_reshape_key_blocks(%q: tensor<1x2x3x16xf32>, %k: tensor<1x2x8x16xf32>,
                                        %v: tensor<1x2x8x16xf32>) -> tensor<1x2x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x16xf32>, tensor<1x2x16x8xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x8xf32>, tensor<f32>
  %sb = poot.reshape %ss : tensor<1x2x3x8xf32> -> tensor<1x2x3x2x4xf32>
  %m = poot.reduce_max %sb {axis = 4 : i64, keepdim} : tensor<1x2x3x2x4xf32>
  %d = poot.sub %sb, %m : tensor<1x2x3x2x4xf32>, tensor<1x2x3x2x1xf32>
  %e = poot.exp %d : tensor<1x2x3x2x4xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x2x3x2x4xf32>
  %pb = poot.div %e, %z : tensor<1x2x3x2x4xf32>, tensor<1x2x3x2x1xf32>
// EXPLAIN: remark: attention declined: 'poot.reshape' at line [[#@LINE+1]] between the softmax and P . V: poot-canonicalize moves such an op to the first matmul only where it relabels the score axes and nothing else reads the chain{{$}}
  %p = poot.reshape %pb : tensor<1x2x3x2x4xf32> -> tensor<1x2x3x8xf32>
  %o = poot.matmul %p, %v : tensor<1x2x3x8xf32>, tensor<1x2x8x16xf32>
  return %o : tensor<1x2x3x16xf32>
}
