// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: keys repeated interleaved (query head h reads key head h / 2)
// and values tiled (value head h % 2). Each alone is a grouping, but query
// head 1 would read key head 0 with value head 1: no single n_rep holds
// for both. The attention reads the repeated keys and values (n_rep 1).
// Hq 4, Hkv 2, D = 40, causal prefill.

// CHECK-LABEL: func.func @nm_gqa_kv_maps_differ
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x5x40xf32>, %[[K:[^:]+]]: tensor<1x2x5x40xf32>, %[[V:[^:]+]]: tensor<1x2x5x40xf32>
// CHECK-DAG: %[[VR:.+]] = poot.gather %[[V]]
// CHECK-DAG: %[[K5:.+]] = poot.reshape %[[K]] : tensor<1x2x5x40xf32> -> tensor<1x2x1x5x40xf32>
// CHECK: %[[KB:.+]] = poot.broadcast %[[K5]]
// CHECK: %[[KR:.+]] = poot.reshape %[[KB]] : tensor<1x2x2x5x40xf32> -> tensor<1x4x5x40xf32>
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[KR]], %[[VR]] {causal, n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, causal; key and value heads are mapped differently, so n_rep 1 over the repeated keys and values{{$}}
func.func @nm_gqa_kv_maps_differ(%q: tensor<1x4x5x40xf32>, %k: tensor<1x2x5x40xf32>,
                                 %v: tensor<1x2x5x40xf32>) -> tensor<1x4x5x40xf32> {
  %k5 = poot.reshape %k : tensor<1x2x5x40xf32> -> tensor<1x2x1x5x40xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 5, 40>} : tensor<1x2x1x5x40xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x5x40xf32> -> tensor<1x4x5x40xf32>
  %vr = poot.concat %v, %v {axis = 1 : i64} : tensor<1x2x5x40xf32>, tensor<1x2x5x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x5x40xf32>, tensor<1x4x40x5xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x5x5xf32>, tensor<f32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi32>
  %vis = poot.compare le, %t, %i : tensor<1x1x1x5xi32>, tensor<1x1x5x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x5x5xi1>, tensor<1x4x5x5xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %sm, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x5x5xf32>, tensor<1x4x5x40xf32>
  return %o : tensor<1x4x5x40xf32>
}
