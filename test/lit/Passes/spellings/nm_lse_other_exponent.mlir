// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, JAX: the logsumexp of the unmasked scores subtracted from the
// masked ones, jnp.exp(jnp.where(mask, s, -inf) - logsumexp(s)): the masked
// keys' weight is lost, so the rows do not sum to 1. Declined; runs
// unfused. MHA, B = 2, H = 1, Lq = 3, Lk = 5, D = 16.

// CHECK-LABEL: func.func @nm_lse_other_exponent
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_lse_other_exponent(%q: tensor<2x1x3x16xf32>, %k: tensor<2x1x5x16xf32>,
                                 %v: tensor<2x1x5x16xf32>, %keep: tensor<2x1x1x5xi1>)
    -> tensor<2x1x3x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x5x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x1x3x16xf32>, tensor<2x1x16x5xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x1x3x5xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %s, %ninf : tensor<2x1x1x5xi1>, tensor<2x1x3x5xf32>, tensor<f32>
  %m = poot.reduce_max %s {axis = 3 : i64, keepdim} : tensor<2x1x3x5xf32>
  // EXPLAIN: remark: attention declined: 'poot.sub' at line [[#@LINE+1]]: the log-sum-exp is taken over another exponent than the one it normalises{{$}}
  %w = poot.sub %s, %m : tensor<2x1x3x5xf32>, tensor<2x1x3x1xf32>
  %ew = poot.exp %w : tensor<2x1x3x5xf32>
  %z = poot.reduce_sum %ew {axis = 3 : i64, keepdim} : tensor<2x1x3x5xf32>
  %l = poot.log %z : tensor<2x1x3x1xf32>
  %lse = poot.add %l, %m : tensor<2x1x3x1xf32>, tensor<2x1x3x1xf32>
  %ls = poot.sub %x, %lse : tensor<2x1x3x5xf32>, tensor<2x1x3x1xf32>
  %p = poot.exp %ls : tensor<2x1x3x5xf32>
  %o = poot.matmul %p, %v : tensor<2x1x3x5xf32>, tensor<2x1x5x16xf32>
  return %o : tensor<2x1x3x16xf32>
}
