// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: the ONNX decode mask with its padding bound one slot short,
// t < pos + 2 for a chunk of 3 rows: row 2 loses its own key pos + 2, so
// the bound is not implied by the causal one (t <= pos + i) and the mask
// is not causal from pos. It stays an additive tensor. MHA 2 heads,
// D = 96, Lk = 12.

// CHECK-LABEL: func.func @nm_causal_bound_cuts_rows
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x3x96xf32>, %[[K:[^:]+]]: tensor<1x2x12x96xf32>, %[[V:[^:]+]]: tensor<1x2x12x96xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[AND:.+]] = poot.and
// CHECK: %[[M:.+]] = poot.select %[[AND]]
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] mask(%[[M]] : tensor<1x1x3x12xf32>) {n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.102062, tensor mask; mask kept as a tensor: finite fill -3.40282e+38 over a condition read only in part; a bound t - pos <= 1 on every row is not implied by the band{{$}}
func.func @nm_causal_bound_cuts_rows(%q: tensor<1x2x3x96xf32>, %k: tensor<1x2x12x96xf32>,
                                     %vr: tensor<1x2x12x96xf32>,
                                     %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 10>})
    -> tensor<1x2x3x96xf32> {
  %keys = poot.constant dense<[[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]]]> : tensor<1x1x1x12xi64>
  %offs = poot.constant dense<[0, 1, 2]> : tensor<3xi64>
  %past = poot.convert %pos : tensor<i32> -> tensor<i64>
  %qpos = poot.add %offs, %past : tensor<3xi64>, tensor<i64>
  %qp4 = poot.reshape %qpos : tensor<3xi64> -> tensor<1x1x3x1xi64>
  %le = poot.compare le, %keys, %qp4 : tensor<1x1x1x12xi64>, tensor<1x1x3x1xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %lim = poot.add %past, %two : tensor<i64>, tensor<i64>
  %slot = poot.iota {dim = 0 : i64} : tensor<12xi64>
  %written = poot.compare lt, %slot, %lim : tensor<12xi64>, tensor<i64>
  %mask = poot.and %le, %written : tensor<1x1x3x12xi1>, tensor<12xi1>
  %f0 = poot.constant dense<0.0> : tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %bias = poot.select %mask, %f0, %fmin : tensor<1x1x3x12xi1>, tensor<f32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x12x96xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x3x96xf32>, tensor<1x2x96x12xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x3x12xf32>, tensor<f32>
  %sm = poot.add %ss, %bias : tensor<1x2x3x12xf32>, tensor<1x1x3x12xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x2x3x12xf32>
  %d = poot.sub %sm, %m : tensor<1x2x3x12xf32>, tensor<1x2x3x1xf32>
  %e = poot.exp %d : tensor<1x2x3x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x3x12xf32>
  %p = poot.div %e, %z : tensor<1x2x3x12xf32>, tensor<1x2x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x2x3x12xf32>, tensor<1x2x12x96xf32>
  return %o : tensor<1x2x3x96xf32>
}
