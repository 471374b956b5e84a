// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// PaddlePaddle/Paddle 2.6.2, python/paddle/nn/layer/transformer.py:
// MultiHeadAttention.forward (self-attention, cache None, dropout 0) with
// _prepare_qkv / compute_kv and _convert_attention_mask, f32. The caller
// passes a causal bool mask, attn_mask = paddle.tril(paddle.ones([L, L],
// dtype='bool')) (True = attend), [L, L], broadcast by the add.
// _prepare_qkv: q = self.q_proj(query) (the projections are left outside:
// their outputs are the inputs); tensor.reshape(x=q, shape=[0, 0,
// num_heads, head_dim]); tensor.transpose(x=q, perm=[0, 2, 1, 3]); k, v
// likewise in compute_kv. forward: product = paddle.matmul(x=q *
// (self.head_dim**-0.5), y=k, transpose_y=True); attn_mask =
// _convert_attention_mask(attn_mask, product.dtype): a bool mask becomes
// (paddle.cast(attn_mask, dtype) - 1.0) * 1e9 (0 where True, -1e9 where
// False); product = product + attn_mask; weights = F.softmax(product)
// (axis -1); out = tensor.matmul(weights, v); tensor.transpose(out,
// perm=[0, 2, 1, 3]); tensor.reshape(x=out, shape=[0, 0, H * D])
// (out_proj left outside). B = 2, L = 8, embed_dim 64 = 4 heads of 16.
//
// Strongest form: the -1e9 term hides exactly t > i (the False cells of
// the tril), every row keeps its diagonal key and -1e9 <= -8192 hides by
// its size: one fused op {causal, n_rep = 1, scale = 0.25}, no tensor
// mask.

// Reached (checked against the oracle):
// CHECK-LABEL: func.func @paddle_nn_multiheadattention_bool_tril_mask_cast_minus_one_times_1e9_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal{{$}}
func.func @paddle_nn_multiheadattention_bool_tril_mask_cast_minus_one_times_1e9_f32(
    %q_lin: tensor<2x8x64xf32>, %k_lin: tensor<2x8x64xf32>, %v_lin: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  // attn_mask = paddle.tril(paddle.ones([L, L], dtype='bool'))
  %ones = poot.constant dense<true> : tensor<8x8xi1>
  %false = poot.constant dense<false> : tensor<i1>
  %ri = poot.iota {dim = 0 : i64} : tensor<8x8xi32>
  %ci = poot.iota {dim = 1 : i64} : tensor<8x8xi32>
  %cmr = poot.sub %ci, %ri : tensor<8x8xi32>, tensor<8x8xi32>
  %diag = poot.constant dense<0> : tensor<i32>
  %keep = poot.compare le, %cmr, %diag : tensor<8x8xi32>, tensor<i32>
  %attn_mask = poot.select %keep, %ones, %false : tensor<8x8xi1>, tensor<8x8xi1>, tensor<i1>
  // _prepare_qkv: reshape [0, 0, num_heads, head_dim], transpose [0, 2, 1, 3]
  %q4 = poot.reshape %q_lin : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %k4 = poot.reshape %k_lin : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  %v4 = poot.reshape %v_lin : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  // product = paddle.matmul(x=q * (self.head_dim**-0.5), y=k, transpose_y=True)
  %sc = poot.constant dense<0.25> : tensor<f32>
  %qs = poot.mul %q, %sc : tensor<2x4x8x16xf32>, tensor<f32>
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x8x16xf32>
  %product0 = poot.matmul %qs, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>
  // _convert_attention_mask: (paddle.cast(attn_mask, dtype) - 1.0) * 1e9
  %mf = poot.convert %attn_mask : tensor<8x8xi1> -> tensor<8x8xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %mm1 = poot.sub %mf, %onef : tensor<8x8xf32>, tensor<f32>
  %big = poot.constant dense<1.0E+9> : tensor<f32>
  %madd = poot.mul %mm1, %big : tensor<8x8xf32>, tensor<f32>
  // product = product + attn_mask
  %product = poot.add %product0, %madd : tensor<2x4x8x8xf32>, tensor<8x8xf32>
  // weights = F.softmax(product)
  %mx = poot.reduce_max %product {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %d = poot.sub %product, %mx : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %e = poot.exp %d : tensor<2x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %weights = poot.div %e, %z : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  // out = tensor.matmul(weights, v); transpose perm [0, 2, 1, 3]; reshape [0, 0, H * D]
  %o = poot.matmul %weights, %v : tensor<2x4x8x8xf32>, tensor<2x4x8x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf32>
  %out = poot.reshape %ot : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %out : tensor<2x8x64xf32>
}
