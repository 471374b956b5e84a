// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Unbatched attention as torch's SDPA math path takes it: q [H, Lq, D],
// one key/value head [1, Lk, D] broadcast by the matmuls (MQA), a chunk of
// three tokens at pos masked by where(t > pos + i, -inf, 0). It fuses as
// the batched op at B = 1. Four heads, D = 32, Lk = 10.

// CHECK-LABEL: func.func @sdpa_unbatched_mqa
// CHECK-SAME: %[[Q:[^:]+]]: tensor<4x3x32xf32>, %[[K:[^:]+]]: tensor<1x10x32xf32>, %[[V:[^:]+]]: tensor<1x10x32xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-DAG: %[[Q4:.+]] = poot.reshape %[[Q]] : tensor<4x3x32xf32> -> tensor<1x4x3x32xf32>
// CHECK-DAG: %[[K4:.+]] = poot.reshape %[[K]] : tensor<1x10x32xf32> -> tensor<1x1x10x32xf32>
// CHECK-DAG: %[[V4:.+]] = poot.reshape %[[V]] : tensor<1x10x32xf32> -> tensor<1x1x10x32xf32>
// out = softmax((q . k) * 32^-1/2, keys t <= pos + i) . v, every head reading key head 0
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q4]], %[[K4]], %[[V4]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.17677{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[R:.+]] = poot.reshape %[[O]] : tensor<1x4x3x32xf32> -> tensor<4x3x32xf32>
// CHECK: return %[[R]]
func.func @sdpa_unbatched_mqa(%q: tensor<4x3x32xf32>, %k: tensor<1x10x32xf32>,
                              %v: tensor<1x10x32xf32>,
                              %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<4x3x32xf32> {
  %p3 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1xi32>
  %i = poot.iota {dim = 1 : i64} : tensor<1x3x1xi32>
  %qpos = poot.add %p3, %i : tensor<1x1x1xi32>, tensor<1x3x1xi32>
  %t = poot.iota {dim = 2 : i64} : tensor<1x1x10xi32>
  %hid = poot.compare gt, %t, %qpos : tensor<1x1x10xi32>, tensor<1x3x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<1x3x10xf32>
  %zero = poot.constant dense<0.0> : tensor<1x3x10xf32>
  %mask = poot.select %hid, %ninf, %zero : tensor<1x3x10xi1>, tensor<1x3x10xf32>, tensor<1x3x10xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<1x10x32xf32>
  %s = poot.matmul %q, %kt : tensor<4x3x32xf32>, tensor<1x32x10xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<4x3x10xf32>, tensor<f32>
  %sm = poot.add %ss, %mask : tensor<4x3x10xf32>, tensor<1x3x10xf32>
  %m = poot.reduce_max %sm {axis = -1 : i64, keepdim} : tensor<4x3x10xf32>
  %d = poot.sub %sm, %m : tensor<4x3x10xf32>, tensor<4x3x1xf32>
  %e = poot.exp %d : tensor<4x3x10xf32>
  %z = poot.reduce_sum %e {axis = -1 : i64, keepdim} : tensor<4x3x10xf32>
  %p = poot.div %e, %z : tensor<4x3x10xf32>, tensor<4x3x1xf32>
  %o = poot.matmul %p, %v : tensor<4x3x10xf32>, tensor<1x10x32xf32>
  return %o : tensor<4x3x32xf32>
}
