// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss of hf_make_causal_mask_past_cat: the block concatenated in front
// of the finfo.min causal triangle along the key axis is finfo.min, not 0, so
// the past keys are hidden. The triangle's condition shifted by the block's
// width is true on the block (it would show those keys), so the concat is
// no shifted causal condition, and the visible keys 3 <= t <= i + 3 are no
// band of t - i: the mask stays a tensor.

// CHECK-LABEL: func.func @nm_concat_past_not_visible
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x4x7xf32>) {n_rep = 1 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158114, tensor mask
func.func @nm_concat_past_not_visible(%q: tensor<2x2x4x40xf32>, %k: tensor<2x2x7x40xf32>,
                                      %v: tensor<2x2x7x40xf32>) -> tensor<2x2x4x40xf32> {
  %full = poot.constant dense<-3.40282347E+38> : tensor<4x4xf32>
  %cond = poot.iota {dim = 0 : i64} : tensor<4xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %c1 = poot.add %cond, %one : tensor<4xi64>, tensor<i64>
  %c1v = poot.reshape %c1 : tensor<4xi64> -> tensor<4x1xi64>
  %lt = poot.compare lt, %cond, %c1v : tensor<4xi64>, tensor<4x1xi64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %tri = poot.select %lt, %zero, %full : tensor<4x4xi1>, tensor<f32>, tensor<4x4xf32>
  %zpast = poot.constant dense<-3.40282347E+38> : tensor<4x3xf32>
  %mask = poot.concat %zpast, %tri {axis = 1 : i64} : tensor<4x3xf32>, tensor<4x4xf32>
  %m4 = poot.reshape %mask : tensor<4x7xf32> -> tensor<1x1x4x7xf32>
  %mb = poot.broadcast %m4 {shape = array<i64: 2, 1, 4, 7>} : tensor<1x1x4x7xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x7x40xf32>
  %s = poot.matmul %q, %kt : tensor<2x2x4x40xf32>, tensor<2x2x40x7xf32>
  %c = poot.constant dense<6.32455532> : tensor<f32>
  %w = poot.div %s, %c : tensor<2x2x4x7xf32>, tensor<f32>
  %wm = poot.add %w, %mb : tensor<2x2x4x7xf32>, tensor<2x1x4x7xf32>
  %m = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x2x4x7xf32>
  %d = poot.sub %wm, %m : tensor<2x2x4x7xf32>, tensor<2x2x4x1xf32>
  %e = poot.exp %d : tensor<2x2x4x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x4x7xf32>
  %p = poot.div %e, %z : tensor<2x2x4x7xf32>, tensor<2x2x4x1xf32>
  %o = poot.matmul %p, %v : tensor<2x2x4x7xf32>, tensor<2x2x7x40xf32>
  return %o : tensor<2x2x4x40xf32>
}
