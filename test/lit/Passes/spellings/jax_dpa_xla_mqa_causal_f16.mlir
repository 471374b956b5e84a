// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// JAX 0.4.31 jax.nn.dot_product_attention(implementation='xla',
// is_causal=True) with one key head (MQA), f16: _dot_product_attention_core
// reshapes q to (B, T, K, G, H), einsum('BTKGH,BSKH->BKGTS') with the scale
// multiplied in after; _apply_masks takes _get_causal_mask =
// jnp.tril(jnp.ones((T, S), bool)) (a constant) and jnp.where(mask,
// logits, _get_large_negative(f16)) = -0.7 * finfo(f16).max; the softmax
// runs in f32 and is cast back; einsum('BKGTS,BSKH->BTKGH'), reshaped to
// (B, T, N, H). B = 1, N = 4 over K = 1, T = 5, H = 40.

// CHECK-LABEL: func.func @jax_dpa_xla_mqa_causal_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-SAME: n_rep = 4 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.158{{[0-9]*}}, causal{{$}}
func.func @jax_dpa_xla_mqa_causal_f16(%q: tensor<1x5x4x40xf16>, %k: tensor<1x5x1x40xf16>,
                                      %v: tensor<1x5x1x40xf16>) -> tensor<1x5x4x40xf16> {
  %q5 = poot.reshape %q : tensor<1x5x4x40xf16> -> tensor<1x5x1x4x40xf16>
  %qh = poot.transpose %q5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x5x1x4x40xf16>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x1x40xf16>
  %k5 = poot.reshape %kh : tensor<1x1x40x5xf16> -> tensor<1x1x1x40x5xf16>
  %s = poot.matmul %qh, %k5 : tensor<1x1x4x5x40xf16>, tensor<1x1x1x40x5xf16>
  %c = poot.constant dense<0.158113882> : tensor<f16>
  %ss = poot.mul %s, %c : tensor<1x1x4x5x5xf16>, tensor<f16>
  %tri = poot.constant dense<[[true, false, false, false, false], [true, true, false, false, false], [true, true, true, false, false], [true, true, true, true, false], [true, true, true, true, true]]> : tensor<5x5xi1>
  %neg = poot.constant dense<-45853.0> : tensor<f16>
  %sm = poot.select %tri, %ss, %neg : tensor<5x5xi1>, tensor<1x1x4x5x5xf16>, tensor<f16>
  %x = poot.convert %sm : tensor<1x1x4x5x5xf16> -> tensor<1x1x4x5x5xf32>
  %mx = poot.reduce_max %x {axis = 4 : i64, keepdim} : tensor<1x1x4x5x5xf32>
  %d = poot.sub %x, %mx : tensor<1x1x4x5x5xf32>, tensor<1x1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 4 : i64, keepdim} : tensor<1x1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x1x4x5x5xf32>, tensor<1x1x4x5x1xf32>
  %ph = poot.convert %p : tensor<1x1x4x5x5xf32> -> tensor<1x1x4x5x5xf16>
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x1x40xf16>
  %v5 = poot.reshape %vh : tensor<1x1x5x40xf16> -> tensor<1x1x1x5x40xf16>
  %o5 = poot.matmul %ph, %v5 : tensor<1x1x4x5x5xf16>, tensor<1x1x1x5x40xf16>
  %ot = poot.transpose %o5 {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x1x4x5x40xf16>
  %o = poot.reshape %ot : tensor<1x5x1x4x40xf16> -> tensor<1x5x4x40xf16>
  return %o : tensor<1x5x4x40xf16>
}
