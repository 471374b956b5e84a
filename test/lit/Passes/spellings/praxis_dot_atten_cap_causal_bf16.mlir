// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Praxis (google/praxis praxis/layers/attentions.py,
// DotProductAttention._dot_atten) with atten_logit_cap = 50 and
// internal_enable_per_dim_scale = False (the GShard/T5 setting): query *=
// dim_per_head ** -0.5; logits = einsum('BTNH,BSNH->BNTS') in bf16;
// _cap_logits: cap * tanh(logits / cap) with cap = jnp.array(50, bf16);
// logits.astype(f32); py_utils.apply_mask_to_logits: jnp.where(mask >=
// min_value * 0.5, logits, min_value), min_value = -0.7 * finfo(f32).max;
// the mask from attentions.causal_mask(input): col_idx = tile(arange(t)[None,
// :], [t, 1]), row_idx = tile(arange(t)[:, None], [1, t]) (jnp.tile is a
// reshape, broadcast, reshape), (row_idx < col_idx).astype(bf16) *
// (-0.7 * finfo(bf16).max), [None, None]; jax.nn.softmax in f32
// .astype(bf16); einsum('BNTS,BSNH->BTNH'). B = 1, T = 6, N = 4, H = 16.

// Strongest form: the float mask convert(row < col) * L compared back with
// L / 2 folds to the condition !(row < col), which is causal; softcap 50.
// CHECK-LABEL: func.func @praxis_dot_atten_cap_causal_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, softcap = 5.000000e+01 : f64} : tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16>, tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xbf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, softcap 50, causal{{$}}
func.func @praxis_dot_atten_cap_causal_bf16(%q: tensor<1x6x4x16xbf16>, %k: tensor<1x6x4x16xbf16>,
                                            %v: tensor<1x6x4x16xbf16>) -> tensor<1x6x4x16xbf16> {
  %sq = poot.constant dense<0.25> : tensor<bf16>
  %qs = poot.mul %q, %sq : tensor<1x6x4x16xbf16>, tensor<bf16>
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xbf16>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x6x4x16xbf16>
  %logits = poot.matmul %qh, %kh : tensor<1x4x6x16xbf16>, tensor<1x4x16x6xbf16>
  %cap = poot.constant dense<50.0> : tensor<bf16>
  %l1 = poot.div %logits, %cap : tensor<1x4x6x6xbf16>, tensor<bf16>
  %l2 = poot.tanh %l1 : tensor<1x4x6x6xbf16>
  %l3 = poot.mul %cap, %l2 : tensor<bf16>, tensor<1x4x6x6xbf16>
  %lf = poot.convert %l3 : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  // attentions.causal_mask
  %ar = poot.iota {dim = 0 : i64} : tensor<6xi32>
  %c0 = poot.reshape %ar : tensor<6xi32> -> tensor<1x1x1x6xi32>
  %c1 = poot.broadcast %c0 {shape = array<i64: 6, 1, 1, 6>} : tensor<1x1x1x6xi32>
  %col = poot.reshape %c1 : tensor<6x1x1x6xi32> -> tensor<6x6xi32>
  %r0 = poot.reshape %ar : tensor<6xi32> -> tensor<1x6x1x1xi32>
  %r1 = poot.broadcast %r0 {shape = array<i64: 1, 6, 6, 1>} : tensor<1x6x1x1xi32>
  %row = poot.reshape %r1 : tensor<1x6x6x1xi32> -> tensor<6x6xi32>
  %lt = poot.compare lt, %row, %col : tensor<6x6xi32>, tensor<6x6xi32>
  %ltf = poot.convert %lt : tensor<6x6xi1> -> tensor<6x6xbf16>
  %lneg = poot.constant dense<-2.36602583E+38> : tensor<bf16>
  %mk = poot.mul %ltf, %lneg : tensor<6x6xbf16>, tensor<bf16>
  %mask = poot.reshape %mk : tensor<6x6xbf16> -> tensor<1x1x6x6xbf16>
  // py_utils.apply_mask_to_logits
  %minv = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %half = poot.constant dense<0.5> : tensor<f32>
  %thr = poot.mul %minv, %half : tensor<f32>, tensor<f32>
  %maskf = poot.convert %mask : tensor<1x1x6x6xbf16> -> tensor<1x1x6x6xf32>
  %keep = poot.compare ge, %maskf, %thr : tensor<1x1x6x6xf32>, tensor<f32>
  %pl = poot.select %keep, %lf, %minv : tensor<1x1x6x6xi1>, tensor<1x4x6x6xf32>, tensor<f32>
  %m = poot.reduce_max %pl {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %pl, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %pb = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xbf16>
  %enc = poot.matmul %pb, %vh : tensor<1x4x6x6xbf16>, tensor<1x4x6x16xbf16>
  %o = poot.transpose %enc {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xbf16>
  return %o : tensor<1x6x4x16xbf16>
}
