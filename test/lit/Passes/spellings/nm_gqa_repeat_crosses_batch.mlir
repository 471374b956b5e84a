// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}
// The graph's i64 values are 64-bit integers in the Vulkan kernels too
// (shaderInt64), so it is planned against this machine's device, which has
// them, rather than the generic one, which does not promise them.
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss: keys [B * Hkv, L, D] copied whole, torch.cat([k, k], dim=0),
// then viewed as [B, Hq, L, D]. The copies run over the flattened batch:
// query head h of row b reads flat row (4 b + h) % 4, i.e. row h / 2 and
// key head h % 2, so the heads of row 0 read row 1's keys. That is no head
// map within a row; the attention reads the copied keys and values
// (n_rep 1). B = 2, Hq 4, Hkv 2, D = 96.

// CHECK-LABEL: func.func @nm_gqa_repeat_crosses_batch
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x4x2x96xf32>, %[[K:[^:]+]]: tensor<4x8x96xf32>, %[[V:[^:]+]]: tensor<4x8x96xf32>
// the copies stay (a gather over the flattened batch), read with n_rep 1
// CHECK: %[[KG:.+]] = poot.gather %[[K]][%{{.+}}] {axis = 0 : i64}
// CHECK: %[[KR:.+]] = poot.reshape %[[KG]] : tensor<8x8x96xf32> -> tensor<2x4x8x96xf32>
// CHECK: %[[VG:.+]] = poot.gather %[[V]][%{{.+}}] {axis = 0 : i64}
// CHECK: %[[VR:.+]] = poot.reshape %[[VG]] : tensor<8x8x96xf32> -> tensor<2x4x8x96xf32>
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[KR]], %[[VR]] {n_rep = 1 : i64, scale = 0.102062{{[0-9]+}} : f64}
// CHECK: return %[[O]]
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.102062{{$}}
func.func @nm_gqa_repeat_crosses_batch(%q: tensor<2x4x2x96xf32>, %k: tensor<4x8x96xf32>,
                                       %v: tensor<4x8x96xf32>) -> tensor<2x4x2x96xf32> {
  %k3 = poot.concat %k, %k {axis = 0 : i64} : tensor<4x8x96xf32>, tensor<4x8x96xf32>
  %kr = poot.reshape %k3 : tensor<8x8x96xf32> -> tensor<2x4x8x96xf32>
  %v3 = poot.concat %v, %v {axis = 0 : i64} : tensor<4x8x96xf32>, tensor<4x8x96xf32>
  %vr = poot.reshape %v3 : tensor<8x8x96xf32> -> tensor<2x4x8x96xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x8x96xf32>
  %s = poot.matmul %q, %kt : tensor<2x4x2x96xf32>, tensor<2x4x96x8xf32>
  %c = poot.constant dense<0.102062072> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x4x2x8xf32>, tensor<f32>
  %m = poot.reduce_max %ss {axis = 3 : i64, keepdim} : tensor<2x4x2x8xf32>
  %d = poot.sub %ss, %m : tensor<2x4x2x8xf32>, tensor<2x4x2x1xf32>
  %e = poot.exp %d : tensor<2x4x2x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x2x8xf32>
  %p = poot.div %e, %z : tensor<2x4x2x8xf32>, tensor<2x4x2x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x4x2x8xf32>, tensor<2x4x8x96xf32>
  return %o : tensor<2x4x2x96xf32>
}
