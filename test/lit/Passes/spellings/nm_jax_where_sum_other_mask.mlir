// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.

// Near miss, JAX: jax.nn.softmax's masked normaliser jnp.sum(e, where=m2)
// with a mask m2 (a padding mask) other than the causal one the scores
// were masked with: the sum leaves out keys whose weight the numerator
// keeps, so the rows do not sum to 1. Declined; runs unfused.
// MHA, B = 2, H = 1, L = 4, D = 16.

// CHECK-LABEL: func.func @nm_jax_where_sum_other_mask
// CHECK-NOT: poot.attention
// CHECK: poot.exp
func.func @nm_jax_where_sum_other_mask(%q: tensor<2x1x4x16xf32>, %k: tensor<2x1x4x16xf32>,
                                       %v: tensor<2x1x4x16xf32>, %pad: tensor<2x1x1x4xi1>)
    -> tensor<2x1x4x16xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x1x4x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<2x1x4x16xf32>, tensor<2x1x16x4xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<2x1x4x4xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<4x4xi64>
  %t = poot.iota {dim = 1 : i64} : tensor<4x4xi64>
  %causal = poot.compare le, %t, %i : tensor<4x4xi64>, tensor<4x4xi64>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %causal, %s, %ninf : tensor<4x4xi1>, tensor<2x1x4x4xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<2x1x4x4xf32>
  %d = poot.sub %x, %m : tensor<2x1x4x4xf32>, tensor<2x1x4x1xf32>
  %e = poot.exp %d : tensor<2x1x4x4xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %em = poot.select %pad, %e, %zero : tensor<2x1x1x4xi1>, tensor<2x1x4x4xf32>, tensor<f32>
  // EXPLAIN: remark: attention declined: 'poot.reduce_sum' at line [[#@LINE+1]] sums the exp only where a condition holds that does not hide the same keys from the scores with -inf: not the sum of the numerator{{$}}
  %z = poot.reduce_sum %em {axis = 3 : i64, keepdim} : tensor<2x1x4x4xf32>
  %p = poot.div %e, %z : tensor<2x1x4x4xf32>, tensor<2x1x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x1x4x4xf32>, tensor<2x1x4x16xf32>
  return %o : tensor<2x1x4x16xf32>
}
