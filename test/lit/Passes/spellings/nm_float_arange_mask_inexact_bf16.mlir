// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Near miss for the float index compare: KerasHub's compute_causal_mask
// (arange(T) >= arange(S) in floats) written with bf16 aranges over 260
// positions. bf16 holds the integers exactly only up to 256, so rows 257
// and 259 round down and hide their own keys: the compare is not the
// integer causal band, and must not be read as one. It fuses with the
// mask as a tensor (the values the graph computes). L = 260, D = 16.
// No oracle run: the oracle evaluates in f64, where these aranges are
// exact, so it computes the integer band this graph does not; the test is
// that the fused op is not made causal.

// CHECK-LABEL: func.func @nm_float_arange_mask_inexact_bf16
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(
// CHECK-NOT: causal
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @nm_float_arange_mask_inexact_bf16(%q: tensor<1x1x260x16xf32>, %k: tensor<1x1x260x16xf32>,
                                              %v: tensor<1x1x260x16xf32>) -> tensor<1x1x260x16xf32> {
  %ia = poot.iota {dim = 0 : i64} : tensor<260xbf16>
  %i = poot.reshape %ia : tensor<260xbf16> -> tensor<260x1xbf16>
  %j = poot.iota {dim = 0 : i64} : tensor<260xbf16>
  %keep = poot.compare ge, %i, %j : tensor<260x1xbf16>, tensor<260xbf16>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x260x16xf32>
  %s0 = poot.matmul %q, %kt : tensor<1x1x260x16xf32>, tensor<1x1x16x260xf32>
  %c = poot.constant dense<0.25> : tensor<f32>
  %s = poot.mul %s0, %c : tensor<1x1x260x260xf32>, tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %w = poot.select %keep, %s, %ninf : tensor<260x260xi1>, tensor<1x1x260x260xf32>, tensor<f32>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<1x1x260x260xf32>
  %d = poot.sub %w, %m : tensor<1x1x260x260xf32>, tensor<1x1x260x1xf32>
  %e = poot.exp %d : tensor<1x1x260x260xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x1x260x260xf32>
  %p = poot.div %e, %z : tensor<1x1x260x260xf32>, tensor<1x1x260x1xf32>
  %o = poot.matmul %p, %v : tensor<1x1x260x260xf32>, tensor<1x1x260x16xf32>
  return %o : tensor<1x1x260x16xf32>
}
