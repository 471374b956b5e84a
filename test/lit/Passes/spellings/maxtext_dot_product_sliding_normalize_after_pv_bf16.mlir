// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// google/maxtext MaxText/layers/attentions.py, AttentionOp with
// attention_kernel="dot_product", attention_type=LOCAL_SLIDING
// (sliding_window_size = 3), no decoder_segment_ids, bf16 (float32_logits
// off); the 1/sqrt(head_dim) is folded into the query kernel's init, so the
// graph has no scale. qk_product reshapes q [b, t, n, d] to [b, t, n_kv, g,
// d] and runs einsum('btkgd,bskd->bkgts'); generate_attention_mask: causal
// (col <= row)[None, None, None], sliding (col > row - 3) & (col <= row)
// multiplied in, jnp.where(mask, 0.0, DEFAULT_MASK_VALUE = -0.7 *
// finfo(f32).max); apply_mask_to_logits: jnp.where(mask >= DMV * 0.5,
// logits, DMV); compute_local_attention: local_max, local_exps =
// exp(w - max), local_sum = sum(exps), moveaxis(local_sum, -2, 1) and
// reshape [b, t, n, 1]; local_out = wv_product: einsum('bkgts,bskd->
// btkgd', exps, v) reshaped [b, t, n, d]; AttentionOp.__call__ returns
// local_out / local_sum: the normaliser is applied after P . V, in the
// output layout. GQA 4/2, d = 16, t = s = 6.

// CHECK-LABEL: func.func @maxtext_dot_product_sliding_normalize_after_pv_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 2 : i64, scale = 1.000000e+00 : f64, window = 3 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 1, causal, window 3{{$}}
func.func @maxtext_dot_product_sliding_normalize_after_pv_bf16(
    %query: tensor<1x6x4x16xbf16>, %key: tensor<1x6x2x16xbf16>, %value: tensor<1x6x2x16xbf16>) -> tensor<1x6x4x16xbf16> {
  // qk_product: einsum('btkgd,bskd->bkgts')
  %q5 = poot.reshape %query : tensor<1x6x4x16xbf16> -> tensor<1x6x2x2x16xbf16>
  %qh = poot.transpose %q5 {perm = array<i64: 0, 2, 3, 1, 4>} : tensor<1x6x2x2x16xbf16>
  %kt = poot.transpose %key {perm = array<i64: 0, 2, 3, 1>} : tensor<1x6x2x16xbf16>
  %kg = poot.reshape %kt : tensor<1x2x16x6xbf16> -> tensor<1x2x1x16x6xbf16>
  %w = poot.matmul %qh, %kg : tensor<1x2x2x6x16xbf16>, tensor<1x2x1x16x6xbf16>
  // generate_attention_mask
  %row = poot.iota {dim = 0 : i64} : tensor<6x6xi32>
  %col = poot.iota {dim = 1 : i64} : tensor<6x6xi32>
  %causal2 = poot.compare le, %col, %row : tensor<6x6xi32>, tensor<6x6xi32>
  %causal = poot.reshape %causal2 : tensor<6x6xi1> -> tensor<1x1x1x6x6xi1>
  %rs = poot.iota {dim = 0 : i64} : tensor<6x1xi32>
  %cs = poot.iota {dim = 1 : i64} : tensor<1x6xi32>
  %win = poot.constant dense<3> : tensor<i32>
  %rmw = poot.sub %rs, %win : tensor<6x1xi32>, tensor<i32>
  %gt = poot.compare gt, %cs, %rmw : tensor<1x6xi32>, tensor<6x1xi32>
  %le = poot.compare le, %cs, %rs : tensor<1x6xi32>, tensor<6x1xi32>
  %sliding = poot.and %gt, %le : tensor<6x6xi1>, tensor<6x6xi1>
  %outm = poot.and %sliding, %causal : tensor<6x6xi1>, tensor<1x1x1x6x6xi1>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %dmv = poot.constant dense<-2.38197633E+38> : tensor<f32>
  %amask = poot.select %outm, %zero, %dmv : tensor<1x1x1x6x6xi1>, tensor<f32>, tensor<f32>
  // apply_mask_to_logits
  %half = poot.constant dense<-1.19098816E+38> : tensor<f32>
  %keep = poot.compare ge, %amask, %half : tensor<1x1x1x6x6xf32>, tensor<f32>
  %dmvb = poot.constant dense<-2.38197633E+38> : tensor<bf16>
  %wm = poot.select %keep, %w, %dmvb : tensor<1x1x1x6x6xi1>, tensor<1x2x2x6x6xbf16>, tensor<bf16>
  // compute_local_attention
  %lmax = poot.reduce_max %wm {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xbf16>
  %ld = poot.sub %wm, %lmax : tensor<1x2x2x6x6xbf16>, tensor<1x2x2x6x1xbf16>
  %lexp = poot.exp %ld : tensor<1x2x2x6x6xbf16>
  %lsum = poot.reduce_sum %lexp {axis = 4 : i64, keepdim} : tensor<1x2x2x6x6xbf16>
  %lsm = poot.transpose %lsum {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x2x2x6x1xbf16>
  %lsr = poot.reshape %lsm : tensor<1x6x2x2x1xbf16> -> tensor<1x6x4x1xbf16>
  // wv_product: einsum('bkgts,bskd->btkgd')
  %vt = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x2x16xbf16>
  %vg = poot.reshape %vt : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %o5 = poot.matmul %lexp, %vg : tensor<1x2x2x6x6xbf16>, tensor<1x2x1x6x16xbf16>
  %o5t = poot.transpose %o5 {perm = array<i64: 0, 3, 1, 2, 4>} : tensor<1x2x2x6x16xbf16>
  %lout = poot.reshape %o5t : tensor<1x6x2x2x16xbf16> -> tensor<1x6x4x16xbf16>
  // prefill_unnormalized_output / prefill_exponentials_sum
  %out = poot.div %lout, %lsr : tensor<1x6x4x16xbf16>, tensor<1x6x4x1xbf16>
  return %out : tensor<1x6x4x16xbf16>
}
