// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: a head gather [0, 1, 1, 1] reads key head 1 for three query
// heads and key head 0 for one: no grouping (no n_rep reads it, whatever
// the order of the query heads). The attention reads the gathered keys and
// values, n_rep 1, which is what the graph computes. Hq 4, Hkv 2, D = 40.

// CHECK-LABEL: func.func @nm_gqa_head_map_not_grouping
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x4x2x40xf32>, %[[K:[^:]+]]: tensor<1x2x8x40xf32>, %[[V:[^:]+]]: tensor<1x2x8x40xf32>
// CHECK-DAG: %[[VR:.+]] = poot.gather %[[V]]
// CHECK-DAG: %[[KR:.+]] = poot.gather %[[K]]
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[KR]], %[[VR]] {n_rep = 1 : i64, scale = 0.158113{{[0-9]+}} : f64} : tensor<1x4x2x40xf32>, tensor<1x4x8x40xf32>, tensor<1x4x8x40xf32>
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114; the head map is not a grouping (key heads read by different numbers of query heads), so n_rep 1 over the repeated keys and values{{$}}
func.func @nm_gqa_head_map_not_grouping(%q: tensor<1x4x2x40xf32>, %k: tensor<1x2x8x40xf32>,
                                        %v: tensor<1x2x8x40xf32>) -> tensor<1x4x2x40xf32> {
  %heads = poot.constant dense<[0, 1, 1, 1]> : tensor<4xi32>
  %kr = poot.gather %k[%heads] {axis = 1 : i64} : tensor<1x2x8x40xf32>, tensor<4xi32>
  %vr = poot.gather %v[%heads] {axis = 1 : i64} : tensor<1x2x8x40xf32>, tensor<4xi32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x2x40xf32>, tensor<1x4x40x8xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x2x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<1x4x2x8xf32>
  %d = poot.sub %ss, %m : tensor<1x4x2x8xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x8xf32>
  %p = poot.div %e, %z : tensor<1x4x2x8xf32>, tensor<1x4x2x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x2x8xf32>, tensor<1x4x8x40xf32>
  return %o : tensor<1x4x2x40xf32>
}
