// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: key positions [0, 1, 2, 3, 5, 6, 7, 8] (position 4 skipped,
// as after a dropped token) against query positions [5, 6, 7]. The
// constant is no arange, so no iota and no causal band: the mask is kept as
// a tensor (and with its finfo.min fill only where that is exact: here
// additively). MHA 2 heads, D = 96.

// CHECK-LABEL: func.func @nm_causal_range_not_arange
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x3x96xf32>, %[[K:[^:]+]]: tensor<1x2x8x96xf32>, %[[V:[^:]+]]: tensor<1x2x8x96xf32>
// the key positions stay a constant; the query positions are iota + 5
// CHECK-DAG: %[[KEYS:.+]] = poot.constant dense<[0, 1, 2, 3, 5, 6, 7, 8]> : tensor<8xi64>
// CHECK-DAG: %[[ROWS:.+]] = poot.iota {dim = 0 : i64} : tensor<3x1xi64>
// CHECK: %[[VIS:.+]] = poot.compare le, %[[KEYS]]
// CHECK: %[[SEL:.+]] = poot.select %[[VIS]]
// CHECK: %[[M:.+]] = poot.reshape %[[SEL]] : tensor<3x8xf32> -> tensor<1x1x3x8xf32>
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x1x3x8xf32>) {n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.102062, tensor mask{{$}}
func.func @nm_causal_range_not_arange(%q: tensor<1x2x3x96xf32>, %k: tensor<1x2x8x96xf32>,
                                      %vr: tensor<1x2x8x96xf32>) -> tensor<1x2x3x96xf32> {
  %keys = poot.constant dense<[0, 1, 2, 3, 5, 6, 7, 8]> : tensor<8xi64>
  %rows = poot.constant dense<[5, 6, 7]> : tensor<3xi64>
  %r2 = poot.reshape %rows : tensor<3xi64> -> tensor<3x1xi64>
  %vis = poot.compare le, %keys, %r2 : tensor<8xi64>, tensor<3x1xi64>
  %f0 = poot.constant dense<0.0> : tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %bias = poot.select %vis, %f0, %fmin : tensor<3x8xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x8x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x96xf32>, tensor<1x2x96x8xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x8xf32>, tensor<f32>
  %sm = poot.add %ss, %bias : tensor<1x2x3x8xf32>, tensor<3x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %d = poot.sub %sm, %m : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x8xf32>
  %p = poot.div %e, %z : tensor<1x2x3x8xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x2x3x8xf32>, tensor<1x2x8x96xf32>
  return %o : tensor<1x2x3x96xf32>
}
