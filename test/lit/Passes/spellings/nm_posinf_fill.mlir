// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, PyTorch: a mask with the wrong sign after the max,
// (s - s.amax(-1, keepdim=True)).masked_fill(pad, float('inf')): a padded
// key takes the whole weight of its row (inf / inf is NaN), which no
// softmax the fused op computes gives. Declined; runs unfused.
// MHA, B = 2, H = 1, Lq = 2, Lk = 5, D = 16.

// CHECK-LABEL: func.func @nm_posinf_fill
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_posinf_fill(%q: tensor<2x1x2x16xf32>, %k: tensor<2x1x5x16xf32>,
                          %v: tensor<2x1x5x16xf32>, %pad: tensor<2x1x1x5xi1>)
    -> tensor<2x1x2x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x5x16xf32>
  %s = poot.matmul %q, %kt : tensor<2x1x2x16xf32>, tensor<2x1x16x5xf32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x1x2x5xf32>
  %d = poot.sub %s, %m : tensor<2x1x2x5xf32>, tensor<2x1x2x1xf32>
  %inf = poot.constant dense<0x7F800000> : tensor<f32>
  // EXPLAIN: remark: attention declined: 'poot.select' at line [[#@LINE+1]] fills the scores with +inf or NaN: a key it marks takes the whole weight of its row (inf/inf), no softmax the fused op computes{{$}}
  %dm = poot.select %pad, %inf, %d : tensor<2x1x1x5xi1>, tensor<f32>, tensor<2x1x2x5xf32>
  %e = poot.exp %dm : tensor<2x1x2x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x1x2x5xf32>
  %p = poot.div %e, %z : tensor<2x1x2x5xf32>, tensor<2x1x2x1xf32>
  %o = poot.matmul %p, %v : tensor<2x1x2x5xf32>, tensor<2x1x5x16xf32>
  return %o : tensor<2x1x2x16xf32>
}
