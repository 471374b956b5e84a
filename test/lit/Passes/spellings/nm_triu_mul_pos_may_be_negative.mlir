// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss of hf_llama440_triu_mul_cache_position: the same
// triu(finfo.min, 1) * (arange(T) > cache_position) product, but pos is
// declared in [-2, 5). The mask hides t > i and t > pos + i; only for
// pos >= 0 does the second imply the first (and for pos <= 0 the first
// the second), so neither bound can be dropped and the mask stays a tensor.

// CHECK-LABEL: func.func @nm_triu_mul_pos_may_be_negative
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x3x8xf32>) {n_rep = 2 : i64, scale = 0.15811{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.158114, tensor mask
func.func @nm_triu_mul_pos_may_be_negative(%q: tensor<1x4x3x40xf32>, %k: tensor<1x2x8x40xf32>,
                                           %v: tensor<1x2x8x40xf32>,
                                           %pos: tensor<i64> {poot.slot = "pos", poot.range = array<i64: -2, 5>})
    -> tensor<1x4x3x40xf32> {
  %full = poot.constant dense<-3.40282347E+38> : tensor<3x8xf32>
  %r = poot.iota {dim = 0 : i64} : tensor<3x8xi64>
  %cl = poot.iota {dim = 1 : i64} : tensor<3x8xi64>
  %dd = poot.sub %cl, %r : tensor<3x8xi64>, tensor<3x8xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %up = poot.compare ge, %dd, %one : tensor<3x8xi64>, tensor<i64>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %triu = poot.select %up, %full, %zero : tensor<3x8xi1>, tensor<3x8xf32>, tensor<f32>
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %qi = poot.iota {dim = 0 : i64} : tensor<3xi64>
  %cp = poot.add %qi, %pos : tensor<3xi64>, tensor<i64>
  %cpr = poot.reshape %cp : tensor<3xi64> -> tensor<3x1xi64>
  %gt = poot.compare gt, %ar, %cpr : tensor<8xi64>, tensor<3x1xi64>
  %gtf = poot.convert %gt : tensor<3x8xi1> -> tensor<3x8xf32>
  %cm = poot.mul %triu, %gtf : tensor<3x8xf32>, tensor<3x8xf32>
  %cm4 = poot.reshape %cm : tensor<3x8xf32> -> tensor<1x1x3x8xf32>
  %k5 = poot.reshape %k : tensor<1x2x8x40xf32> -> tensor<1x2x1x8x40xf32>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 40>} : tensor<1x2x1x8x40xf32>
  %kr = poot.reshape %kb : tensor<1x2x2x8x40xf32> -> tensor<1x4x8x40xf32>
  %v5 = poot.reshape %v : tensor<1x2x8x40xf32> -> tensor<1x2x1x8x40xf32>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 8, 40>} : tensor<1x2x1x8x40xf32>
  %vr = poot.reshape %vb : tensor<1x2x2x8x40xf32> -> tensor<1x4x8x40xf32>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x40xf32>
  %s = poot.matmul %q, %kt : tensor<1x4x3x40xf32>, tensor<1x4x40x8xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<1x4x3x8xf32>, tensor<f32>
  %sm = poot.add %ss, %cm4 : tensor<1x4x3x8xf32>, tensor<1x1x3x8xf32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %d = poot.sub %sm, %m : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %p = poot.div %e, %z : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  %o = poot.matmul %p, %vr : tensor<1x4x3x8xf32>, tensor<1x4x8x40xf32>
  return %o : tensor<1x4x3x40xf32>
}
