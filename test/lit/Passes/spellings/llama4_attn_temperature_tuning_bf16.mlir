// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF Llama 4 (attn_temperature_tuning on a NoPE layer): query_states =
// (query_states * attn_scales).to(bf16) with attn_scales [B, L, 1, 1] one
// factor per query position (log(floor((cache_position + 1) / floor_scale)
// + 1) * attn_scale + 1, computed outside); then the transpose to
// [B, H, L, D], repeat_kv for 4 query heads over 2 key heads, w = q @ k^T *
// head_dim^-0.5, the causal mask at cache position pos, softmax in f32.
// A factor per query row is no scale of the fused op: it stays on q.
// B = 1, L = 3, H = 4, Hkv = 2, D = 32, Lk = 10.

// CHECK-LABEL: func.func @llama4_attn_temperature_tuning_bf16
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x3x4x32xbf16>, %[[K:[^:]+]]: tensor<1x2x10x32xbf16>, %[[V:[^:]+]]: tensor<1x2x10x32xbf16>, %[[SC:[^:]+]]: tensor<1x3x1x1xbf16>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[QS:.+]] = poot.mul %[[Q]], %[[SC]]
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{.+}}, %{{.+}}, %{{.+}} pos(%[[POS]] : tensor<i32>) {causal, n_rep = 2 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.1767{{[0-9]*}}, causal
func.func @llama4_attn_temperature_tuning_bf16(%q: tensor<1x3x4x32xbf16>, %k: tensor<1x2x10x32xbf16>,
                                               %v: tensor<1x2x10x32xbf16>, %sc: tensor<1x3x1x1xbf16>,
                                               %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 8>})
    -> tensor<1x4x3x32xbf16> {
  %qs = poot.mul %q, %sc : tensor<1x3x4x32xbf16>, tensor<1x3x1x1xbf16>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x32xbf16>
  %k5 = poot.reshape %k : tensor<1x2x10x32xbf16> -> tensor<1x2x1x10x32xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 10, 32>} : tensor<1x2x1x10x32xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x10x32xbf16> -> tensor<1x4x10x32xbf16>
  %v5 = poot.reshape %v : tensor<1x2x10x32xbf16> -> tensor<1x2x1x10x32xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 10, 32>} : tensor<1x2x1x10x32xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x10x32xbf16> -> tensor<1x4x10x32xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x10x32xbf16>
  %w = poot.matmul %qh, %kt : tensor<1x4x3x32xbf16>, tensor<1x4x32x10xbf16>
  %c = poot.constant dense<0.1767578> : tensor<bf16>
  %ws = poot.mul %w, %c : tensor<1x4x3x10xbf16>, tensor<bf16>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x3x1xi32>
  %qpos = poot.add %i, %p4 : tensor<1x1x3x1xi32>, tensor<1x1x1x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x10xi32>
  %hid = poot.compare gt, %t, %qpos : tensor<1x1x1x10xi32>, tensor<1x1x3x1xi32>
  %min = poot.constant dense<0xFF7F> : tensor<bf16>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %mask = poot.select %hid, %min, %zero : tensor<1x1x3x10xi1>, tensor<bf16>, tensor<bf16>
  %wm = poot.add %ws, %mask : tensor<1x4x3x10xbf16>, tensor<1x1x3x10xbf16>
  %wf = poot.convert %wm : tensor<1x4x3x10xbf16> -> tensor<1x4x3x10xf32>
  %m = poot.reduce_max %wf {axis = 3 : i64, keepdim} : tensor<1x4x3x10xf32>
  %d = poot.sub %wf, %m : tensor<1x4x3x10xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x10xf32>
  %p = poot.div %e, %z : tensor<1x4x3x10xf32>, tensor<1x4x3x1xf32>
  %pb = poot.convert %p : tensor<1x4x3x10xf32> -> tensor<1x4x3x10xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x4x3x10xbf16>, tensor<1x4x10x32xbf16>
  return %o : tensor<1x4x3x32xbf16>
}
