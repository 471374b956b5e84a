// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// keras.ops.dot_product_attention(q, k, v, mask=m, is_causal=True) as the
// NumPy backend computes it ([B, T, N, H], one key head per query head):
// logits = einsum('BTNH,BSNH->BNTS'); logits *= scale; _apply_masks:
// logical_and(mask, tril(ones((T, S), bool))); where(mask, logits,
// -0.7 * finfo(f32).max); softmax(axis=-1); einsum('BNTS,BSNH->BTNH').
// The user mask hides whole rows, so the causal part is not read alone
// (one finite fill over both parts), but the fill absorbs any score: the
// where is the additive tensor mask. B = 2, T = S = 3, N = 2, H = 16.

// CHECK-LABEL: func.func @keras3_numpy_dpa_causal_mask_large_negative_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: %[[O:.+]] = poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x3x3xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @keras3_numpy_dpa_causal_mask_large_negative_f32(%q: tensor<2x3x2x16xf32>, %k: tensor<2x3x2x16xf32>,
                                                           %v: tensor<2x3x2x16xf32>, %mask: tensor<2x1x3x3xi1>)
    -> tensor<2x3x2x16xf32> {
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x2x16xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x3x2x16xf32>
  %lg = poot.matmul %qh, %kt : tensor<2x2x3x16xf32>, tensor<2x2x16x3xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %ls = poot.mul %lg, %c : tensor<2x2x3x3xf32>, tensor<f32>
  %tr = poot.iota {dim = 0 : i64} : tensor<3x3xi32>
  %tc = poot.iota {dim = 1 : i64} : tensor<3x3xi32>
  %tril = poot.compare le, %tc, %tr : tensor<3x3xi32>, tensor<3x3xi32>
  %comb = poot.and %mask, %tril : tensor<2x1x3x3xi1>, tensor<3x3xi1>
  %neg = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %pl = poot.select %comb, %ls, %neg : tensor<2x1x3x3xi1>, tensor<2x2x3x3xf32>, tensor<f32>
  %m = poot.reduce_max %pl {axis = 3 : i64, keepdim} : tensor<2x2x3x3xf32>
  %d = poot.sub %pl, %m : tensor<2x2x3x3xf32>, tensor<2x2x3x1xf32>
  %e = poot.exp %d : tensor<2x2x3x3xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x2x3x3xf32>
  %p = poot.div %e, %z : tensor<2x2x3x3xf32>, tensor<2x2x3x1xf32>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x3x2x16xf32>
  %oh = poot.matmul %p, %vh : tensor<2x2x3x3xf32>, tensor<2x2x3x16xf32>
  %o = poot.transpose %oh {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x3x16xf32>
  return %o : tensor<2x3x2x16xf32>
}
