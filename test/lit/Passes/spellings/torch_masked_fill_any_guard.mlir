// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PyTorch, a hand-written guard against fully masked rows:
// attn = attn.masked_fill(~keep.any(-1, keepdim=True), 0), with any() as a
// max over the mask cast to float, > 0. The mask is causal at a decode
// position pos in [0, 12) over Lk = 16 keys (t <= pos + i): every row keeps
// key 0, so the guard never fires.
// MHA, B = 1, H = 2, Lq = 4, Lk = 16, D = 32.

// CHECK-LABEL: func.func @torch_masked_fill_any_guard
// CHECK-SAME: %[[Q:[^:]+]]: tensor<1x2x4x32xf32>, %[[K:[^:]+]]: tensor<1x2x16x32xf32>, %[[V:[^:]+]]: tensor<1x2x16x32xf32>, %[[POS:[^:]+]]: tensor<i32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[V]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 1 : i64, scale = 0.176776{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @torch_masked_fill_any_guard(%q: tensor<1x2x4x32xf32>, %k: tensor<1x2x16x32xf32>,
                                       %v: tensor<1x2x16x32xf32>,
                                       %pos: tensor<i32> {poot.range = array<i64: 0, 12>})
    -> tensor<1x2x4x32xf32> {
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x16x32xf32>
  %s = poot.matmul %q, %kt : tensor<1x2x4x32xf32>, tensor<1x2x32x16xf32>
  %c = poot.constant dense<0.176776695> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x2x4x16xf32>, tensor<f32>
  %i = poot.iota {dim = 0 : i64} : tensor<4x16xi32>
  %t = poot.iota {dim = 1 : i64} : tensor<4x16xi32>
  %qpos = poot.add %i, %pos : tensor<4x16xi32>, tensor<i32>
  %keep = poot.compare le, %t, %qpos : tensor<4x16xi32>, tensor<4x16xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %keep, %ss, %ninf : tensor<4x16xi1>, tensor<1x2x4x16xf32>, tensor<f32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %d = poot.sub %x, %m : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %e = poot.exp %d : tensor<1x2x4x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x4x16xf32>
  %p = poot.div %e, %z : tensor<1x2x4x16xf32>, tensor<1x2x4x1xf32>
  %kf = poot.convert %keep : tensor<4x16xi1> -> tensor<4x16xf32>
  %anyf = poot.reduce_max %kf {axis = 1 : i64, keepdim} : tensor<4x16xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %any = poot.compare gt, %anyf, %zero : tensor<4x1xf32>, tensor<f32>
  %none = poot.not %any : tensor<4x1xi1>
  %ps = poot.select %none, %zero, %p : tensor<4x1xi1>, tensor<f32>, tensor<1x2x4x16xf32>
  %o = poot.matmul %ps, %v : tensor<1x2x4x16xf32>, tensor<1x2x16x32xf32>
  return %o : tensor<1x2x4x32xf32>
}
