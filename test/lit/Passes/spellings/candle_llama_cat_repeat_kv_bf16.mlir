// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// candle (huggingface/candle candle-transformers/src/models/llama.rs,
// CausalSelfAttention::forward, non-flash branch) on a prompt chunk after
// index_pos = 4 cached tokens: k = Tensor::cat(&[cache_k, &k], 2) (same
// for v); repeat_kv (candle-transformers/src/utils.rs) is
// Tensor::cat(&vec![&xs; n_rep], 2).reshape((b, n_kv * n_rep, L, D)), copies
// joined along the sequence axis and regrouped into heads; q, k, v
// .to_dtype(F32); att = q.matmul(&k.t()) / sqrt(D) (Tensor / f64 is
// affine(1 / D^0.5, 0)); the mask is build_causal_mask(seq_len, index_pos),
// a u8 [L, index_pos + L] table with 1 where j > index_pos + i, broadcast_as
// the scores; masked_fill = mask.where_cond(full(-inf), att);
// candle_nn::ops::softmax_last_dim (max-subtracted); att.matmul(v)
// .to_dtype(bf16). GQA 4/2, L = 3, Lk = 7, D = 32, bf16 in.

// Strongest form: the copies joined along the sequence axis and viewed as
// heads are repeat_kv (n_rep 2, the cache read once), and the u8 table
// j > index_pos + i converted to a condition is the causal band at offset 4.
// CHECK-LABEL: func.func @candle_llama_cat_repeat_kv_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 2 : i64, scale = 0.1767766922712326 : f64} : tensor<1x4x3x32xf32>, tensor<1x2x7x32xf32>, tensor<1x2x7x32xf32> -> tensor<1x4x3x32xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.176777, causal at offset 4{{$}}
func.func @candle_llama_cat_repeat_kv_bf16(%q: tensor<1x4x3x32xbf16>, %ck: tensor<1x2x4x32xbf16>,
                                           %cv: tensor<1x2x4x32xbf16>, %kn: tensor<1x2x3x32xbf16>,
                                           %vn: tensor<1x2x3x32xbf16>) -> tensor<1x4x3x32xbf16> {
  %k = poot.concat %ck, %kn {axis = 2 : i64} : tensor<1x2x4x32xbf16>, tensor<1x2x3x32xbf16>
  %v = poot.concat %cv, %vn {axis = 2 : i64} : tensor<1x2x4x32xbf16>, tensor<1x2x3x32xbf16>
  %kc = poot.concat %k, %k {axis = 2 : i64} : tensor<1x2x7x32xbf16>, tensor<1x2x7x32xbf16>
  %kr = poot.reshape %kc : tensor<1x2x14x32xbf16> -> tensor<1x4x7x32xbf16>
  %vc = poot.concat %v, %v {axis = 2 : i64} : tensor<1x2x7x32xbf16>, tensor<1x2x7x32xbf16>
  %vr = poot.reshape %vc : tensor<1x2x14x32xbf16> -> tensor<1x4x7x32xbf16>
  %qf = poot.convert %q : tensor<1x4x3x32xbf16> -> tensor<1x4x3x32xf32>
  %kf = poot.convert %kr : tensor<1x4x7x32xbf16> -> tensor<1x4x7x32xf32>
  %vf = poot.convert %vr : tensor<1x4x7x32xbf16> -> tensor<1x4x7x32xf32>
  %kt = poot.transpose %kf {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x32xf32>
  %qk = poot.matmul %qf, %kt : tensor<1x4x3x32xf32>, tensor<1x4x32x7xf32>
  %mul = poot.constant dense<0.176776695> : tensor<f32>
  %add = poot.constant dense<0.0> : tensor<f32>
  %a0 = poot.mul %qk, %mul : tensor<1x4x3x7xf32>, tensor<f32>
  %att = poot.add %a0, %add : tensor<1x4x3x7xf32>, tensor<f32>
  %mu8 = poot.constant dense<[[0, 0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0]]> : tensor<3x7xi32>
  %mb = poot.broadcast %mu8 {shape = array<i64: 1, 4, 3, 7>} : tensor<3x7xi32>
  %cond = poot.convert %mb : tensor<1x4x3x7xi32> -> tensor<1x4x3x7xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %ontrue = poot.broadcast %ninf {shape = array<i64: 1, 4, 3, 7>} : tensor<f32>
  %am = poot.select %cond, %ontrue, %att : tensor<1x4x3x7xi1>, tensor<1x4x3x7xf32>, tensor<1x4x3x7xf32>
  %m = poot.reduce_max %am {axis = 3 : i64, keepdim} : tensor<1x4x3x7xf32>
  %d = poot.sub %am, %m : tensor<1x4x3x7xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x7xf32>
  %p = poot.div %e, %z : tensor<1x4x3x7xf32>, tensor<1x4x3x1xf32>
  %y = poot.matmul %p, %vf : tensor<1x4x3x7xf32>, tensor<1x4x7x32xf32>
  %o = poot.convert %y : tensor<1x4x3x32xf32> -> tensor<1x4x3x32xbf16>
  return %o : tensor<1x4x3x32xbf16>
}
