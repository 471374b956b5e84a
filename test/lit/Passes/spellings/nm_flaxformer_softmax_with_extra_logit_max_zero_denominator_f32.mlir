// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, Google flaxformer (flaxformer/components/attention/
// dense_attention.py, dot_product_attention with use_extra_logit=True and
// _softmax_with_extra_logit): m = jnp.maximum(stop_gradient(x.max(-1,
// keepdims=True)), 0); unnormalized = exp(x - m); denom =
// unnormalized.sum(-1, keepdims=True) + exp(-m); unnormalized / denom. The
// subtracted m is a legitimate row shift, but the denominator carries one
// more term, exp(0 - m), a virtual zero logit: each row's weights sum to
// less than 1 ("attend to nothing"). Not softmax attention; must decline.
// The rest is the decoder self-attention of a prefill: make_causal_mask
// (make_attention_mask(idxs, idxs, jnp.greater_equal) as float32),
// lax.select(mask > 0, 0, -1e10) added to the f32 logits of
// einsum('...qhd,...khd->...hqk'), no rescaling (T5 folds it into the
// initialisers); einsum('...hqk,...khd->...qhd'). B = 1, L = 5, H = 2,
// D = 16.

// CHECK-LABEL: func.func @nm_flaxformer_softmax_with_extra_logit_max_zero_denominator_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: the denominator is not the sum of the numerator
func.func @nm_flaxformer_softmax_with_extra_logit_max_zero_denominator_f32(
    %query: tensor<1x5x2x16xf32>, %key: tensor<1x5x2x16xf32>, %value: tensor<1x5x2x16xf32>) -> tensor<1x5x2x16xf32> {
  // make_causal_mask: idxs = broadcast_to(arange(5)); make_attention_mask(idxs, idxs, greater_equal)
  %qi = poot.iota {dim = 2 : i64} : tensor<1x1x5x1xi32>
  %ki = poot.iota {dim = 3 : i64} : tensor<1x1x1x5xi32>
  %ge = poot.compare ge, %qi, %ki : tensor<1x1x5x1xi32>, tensor<1x1x1x5xi32>
  %maskf = poot.convert %ge : tensor<1x1x5x5xi1> -> tensor<1x1x5x5xf32>
  // attention_bias = lax.select(mask > 0, full(0.), full(-1e10))
  %zf = poot.constant dense<0.0> : tensor<f32>
  %gt = poot.compare gt, %maskf, %zf : tensor<1x1x5x5xf32>, tensor<f32>
  %z = poot.constant dense<0.0> : tensor<1x1x5x5xf32>
  %big = poot.constant dense<-1.0e+10> : tensor<1x1x5x5xf32>
  %bias = poot.select %gt, %z, %big : tensor<1x1x5x5xi1>, tensor<1x1x5x5xf32>, tensor<1x1x5x5xf32>
  // attn_weights = einsum('...qhd,...khd->...hqk', query, key) + bias
  %qh = poot.transpose %query {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xf32>
  %kt = poot.transpose %key {perm = array<i64: 0, 2, 3, 1>} : tensor<1x5x2x16xf32>
  %w = poot.matmul %qh, %kt : tensor<1x2x5x16xf32>, tensor<1x2x16x5xf32>
  %x = poot.add %w, %bias : tensor<1x2x5x5xf32>, tensor<1x1x5x5xf32>
  // _softmax_with_extra_logit
  %mx0 = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %m = poot.max %mx0, %zf : tensor<1x2x5x1xf32>, tensor<f32>
  %d = poot.sub %x, %m : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  %e = poot.exp %d : tensor<1x2x5x5xf32>
  %s = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x2x5x5xf32>
  %nm = poot.neg %m : tensor<1x2x5x1xf32>
  %em = poot.exp %nm : tensor<1x2x5x1xf32>
  %den = poot.add %s, %em : tensor<1x2x5x1xf32>, tensor<1x2x5x1xf32>
  %p = poot.div %e, %den : tensor<1x2x5x5xf32>, tensor<1x2x5x1xf32>
  // einsum('...hqk,...khd->...qhd', attn_weights, value)
  %vh = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x2x16xf32>
  %o0 = poot.matmul %p, %vh : tensor<1x2x5x5xf32>, tensor<1x2x5x16xf32>
  %o = poot.transpose %o0 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x5x16xf32>
  return %o : tensor<1x5x2x16xf32>
}
