// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// A key cache kept transposed, [B, Hkv, D, Lk] (so q . k needs no
// transpose), with its heads gathered for the query heads by a constant
// map, [0, 0, 0, 0, 1, 1, 1, 1], and the value cache [B, Hkv, Lk, D]
// gathered the same way. Decode at pos; GQA 8/2, D = 40, B = 2, Lk = 16.

// CHECK-LABEL: func.func @gqa_kcache_pretransposed_decode
// CHECK-SAME: %[[Q:[^:]+]]: tensor<2x8x1x40xf32>, %[[KC:[^:]+]]: tensor<2x2x40x16xf32>, %[[VC:[^:]+]]: tensor<2x2x16x40xf32>, %[[POS:[^:]+]]: tensor<i32>
// the fused op reads k [B, Hkv, Lk, D]: the cache transposed back, once
// CHECK: %[[K:.+]] = poot.transpose %[[KC]] {perm = array<i64: 0, 1, 3, 2>} : tensor<2x2x40x16xf32>
// CHECK-NOT: poot.{{gather|broadcast}}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %[[Q]], %[[K]], %[[VC]] pos(%[[POS]] : tensor<i32>) {causal, n_rep = 4 : i64, scale = 0.158113{{[0-9]+}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: return %[[O]]
func.func @gqa_kcache_pretransposed_decode(%q: tensor<2x8x1x40xf32>, %kc: tensor<2x2x40x16xf32>,
                                           %vc: tensor<2x2x16x40xf32>,
                                           %pos: tensor<i32> {poot.slot = "pos", poot.range = array<i64: 0, 16>})
    -> tensor<2x8x1x40xf32> {
  %heads = poot.constant dense<[0, 0, 0, 0, 1, 1, 1, 1]> : tensor<8xi64>
  %kt = poot.gather %kc[%heads] {axis = 1 : i64} : tensor<2x2x40x16xf32>, tensor<8xi64>
  %vr = poot.gather %vc[%heads] {axis = 1 : i64} : tensor<2x2x16x40xf32>, tensor<8xi64>
  %s = poot.matmul %q, %kt : tensor<2x8x1x40xf32>, tensor<2x8x40x16xf32>
  %c = poot.constant dense<0.158113882> : tensor<f32>
  %ss = poot.mul %s, %c : tensor<2x8x1x16xf32>, tensor<f32>
  %t = poot.iota {dim = 3 : i64} : tensor<1x1x1x16xi32>
  %p4 = poot.reshape %pos : tensor<i32> -> tensor<1x1x1x1xi32>
  %vis = poot.compare le, %t, %p4 : tensor<1x1x1x16xi32>, tensor<1x1x1x1xi32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %sm = poot.select %vis, %ss, %ninf : tensor<1x1x1x16xi1>, tensor<2x8x1x16xf32>, tensor<f32>
  %m = poot.reduce_max %sm {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %d = poot.sub %sm, %m : tensor<2x8x1x16xf32>, tensor<2x8x1x1xf32>
  %e = poot.exp %d : tensor<2x8x1x16xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x8x1x16xf32>
  %p = poot.div %e, %z : tensor<2x8x1x16xf32>, tensor<2x8x1x1xf32>
  %o = poot.matmul %p, %vr : tensor<2x8x1x16xf32>, tensor<2x8x16x40xf32>
  return %o : tensor<2x8x1x40xf32>
}
