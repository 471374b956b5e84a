// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// DeepSeek-V2 MLA keys: k = cat(k_nope [B, H, Lk, 128],
// k_pe.expand(B, H, Lk, 64)) with one rope key shared by every head; the
// query is cat(q_nope, q_pe). Dk = 192, Dv = 128, causal from pos.

// CHECK-LABEL: func.func @mla_split_key
// CHECK-SAME: %[[QN:[^:]+]]: tensor<1x4x2x128xf32>, %[[QP:[^:]+]]: tensor<1x4x2x64xf32>, %[[KN:[^:]+]]: tensor<1x4x10x128xf32>, %[[KP:[^:]+]]: tensor<1x1x10x64xf32>, %[[V:[^:]+]]: tensor<1x4x10x128xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK: %[[Q:.+]] = poot.concat %[[QN]], %[[QP]]
// the shared rope key is read once for every head
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[KN]], %[[V]] k_shared(%[[KP]] : tensor<1x1x10x64xf32>) pos(%[[POS]] : tensor<i32>) {causal, n_rep = 1 : i64, scale = 0.0721687{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @mla_split_key(%qn: tensor<1x4x2x128xf32>, %qp: tensor<1x4x2x64xf32>,
                         %kn: tensor<1x4x10x128xf32>, %kp: tensor<1x1x10x64xf32>,
                         %v: tensor<1x4x10x128xf32>,
                         %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 9>})
    -> tensor<1x4x2x128xf32> {
  %q = poot.concat %qn, %qp {axis = 3 : i64} : tensor<1x4x2x128xf32>, tensor<1x4x2x64xf32>
  %kpe = poot.broadcast %kp {shape = array<i64: 1, 4, 10, 64>} : tensor<1x1x10x64xf32>
  %k = poot.concat %kn, %kpe {axis = 3 : i64} : tensor<1x4x10x128xf32>, tensor<1x4x10x64xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x10x192xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x2x192xf32>, tensor<1x4x192x10xf32>
  %c = poot.constant dense<0.0721687824> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x2x10xf32>, tensor<f32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %i = poot.iota {dim = 2 : i64} : tensor<1x1x2x1xi32>
  %qpos = poot.add %p4, %i : tensor<1x1x1x1xi32>, tensor<1x1x2x1xi32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x10xi32>
  %vis = poot.compare le, %t, %qpos : tensor<1x1x1x10xi32>, tensor<1x1x2x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x2x10xi1>, tensor<1x4x2x10xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x2x10xf32>
  %d = poot.sub %sm, %m : tensor<1x4x2x10xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x10xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x10xf32>
  %p = poot.div %e, %z : tensor<1x4x2x10xf32>, tensor<1x4x2x1xf32>
  %o = poot.matmul %p, %v : tensor<1x4x2x10xf32>, tensor<1x4x10x128xf32>
  return %o : tensor<1x4x2x128xf32>
}
