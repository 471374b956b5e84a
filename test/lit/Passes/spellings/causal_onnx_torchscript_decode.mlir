// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// The TorchScript exporter's spelling of the same mask, one decode row:
// the past length is element 2 of a shape vector concatenated from
// constants and pos (a Gather of a Concat), and the padding mask [B, Lk]
// is reindexed through a flattened view by a constant index [B, 1, 1, Lk]
// (b * Lk + t: the arange of the whole axis). Multi-query: one key head
// expanded to the 4 query heads. D = 40, B = 2, Lk = 12.

// CHECK-LABEL: func.func @causal_onnx_torchscript_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x1x40xf32>, %[[K:[^:]+]]: tensor<2x1x12x40xf32>, %[[V:[^:]+]]: tensor<2x1x12x40xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-NOT: poot.{{select|compare|gather|concat}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @causal_onnx_torchscript_decode(%q: tensor<2x4x1x40xf32>, %k: tensor<2x1x12x40xf32>,
                                          %v: tensor<2x1x12x40xf32>,
                                          %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 12>})
    -> tensor<2x4x1x40xf32> {
  %p64 = poot.convert %pos : tensor<i32> -> tensor<i64>
  %p1 = poot.reshape %p64 : tensor<i64> -> tensor<1xi64>
  %dims = poot.constant dense<2> : tensor<2xi64>
  %hd = poot.constant dense<16> : tensor<1xi64>
  %shape = poot.concat %dims, %p1, %hd {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64>, tensor<1xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %past = poot.gather %shape[%two] {axis = 0 : i64} : tensor<4xi64>, tensor<i64>
  %offs = poot.constant dense<[0]> : tensor<1xi64>
  %qpos = poot.add %offs, %past : tensor<1xi64>, tensor<i64>
  %qp4 = poot.reshape %qpos : tensor<1xi64> -> tensor<1x1x1x1xi64>
  %keys = poot.constant dense<[[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]]]> : tensor<1x1x1x12xi64>
  %le = poot.compare le, %keys, %qp4 : tensor<1x1x1x12xi64>, tensor<1x1x1x1xi64>
  %pb = poot.broadcast %p64 {shape = array<i64: 2, 12>} : tensor<i64>
  %one1 = poot.constant dense<1> : tensor<2x12xi64>
  %lim = poot.add %pb, %one1 : tensor<2x12xi64>, tensor<2x12xi64>
  %slot = poot.iota {dim = 1 : i64} : tensor<2x12xi64>
  %written = poot.compare lt, %slot, %lim : tensor<2x12xi64>, tensor<2x12xi64>
  %flat = poot.reshape %written : tensor<2x12xi1> -> tensor<24x1xi1>
  %ix = poot.constant dense<[[[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]]], [[[12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23]]]]> : tensor<2x1x1x12xi64>
  %g = poot.gather %flat[%ix] {axis = 0 : i64} : tensor<24x1xi1>, tensor<2x1x1x12xi64>
  %pad = poot.reshape %g : tensor<2x1x1x12x1xi1> -> tensor<2x1x1x12xi1>
  %mask = poot.and %le, %pad : tensor<1x1x1x12xi1>, tensor<2x1x1x12xi1>
  %f0 = poot.constant dense<0.0> : tensor<f32>
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %bias = poot.select %mask, %f0, %fmin : tensor<2x1x1x12xi1>, tensor<f32>, tensor<f32>
  %kr = poot.broadcast %k {shape = array<i64: 2, 4, 12, 40>} : tensor<2x1x12x40xf32>
  %vr = poot.broadcast %v {shape = array<i64: 2, 4, 12, 40>} : tensor<2x1x12x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x12x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x1x40xf32>, tensor<2x4x40x12xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x4x1x12xf32>, tensor<f32>
  %sm = poot.add %ss, %bias : tensor<2x4x1x12xf32>, tensor<2x1x1x12xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x4x1x12xf32>
  %d = poot.sub %sm, %m : tensor<2x4x1x12xf32>, tensor<2x4x1x1xf32>
  %e = poot.exp %d : tensor<2x4x1x12xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x1x12xf32>
  %p = poot.div %e, %z : tensor<2x4x1x12xf32>, tensor<2x4x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x4x1x12xf32>, tensor<2x4x12x40xf32>
  return %o : tensor<2x4x1x40xf32>
}
