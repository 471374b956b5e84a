// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// google-deepmind/dm-haiku haiku/_src/attention.py (MultiHeadAttention
// .__call__) inside examples/transformer (model.py Transformer.__call__,
// train.py): input_mask = jnp.greater(tokens, 0); mask = mask[:, None,
// None, :] * np.tril(np.ones((1, 1, T, T))) (a trace-time constant, the
// product a float [B, 1, T, T]); the projections are [B, T, H, K];
// attn_logits = jnp.einsum('...thd,...Thd->...htT', q, k) /
// np.sqrt(key_size); jnp.where(mask, attn_logits, -1e30) (a float
// condition, mask != 0); jax.nn.softmax (x - stop_gradient(max), exp,
// / sum); einsum('...htT,...Thd->...thd', w, v). A row whose own token is
// padding hides every key; there the graph averages v, and so does the
// additive mask select(mask, 0, -1e30): -1e30 absorbs any score below
// 2^67. B = 2, H = 4, T = 6, K = 16.

// CHECK-LABEL: func.func @haiku_mha_where_1e30_token_padding_causal_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask
func.func @haiku_mha_where_1e30_token_padding_causal_f32(
    %q: tensor<2x6x4x16xf32>, %k: tensor<2x6x4x16xf32>, %v: tensor<2x6x4x16xf32>,
    %tokens: tensor<2x6xi32> {poot.range = array<i64: 0, 50>}) -> tensor<2x6x64xf32> {
  // input_mask = tokens > 0; mask = input_mask[:, None, None, :] * tril(ones)
  %z = poot.constant dense<0> : tensor<i32>
  %im = poot.compare gt, %tokens, %z : tensor<2x6xi32>, tensor<i32>
  %imf = poot.convert %im : tensor<2x6xi1> -> tensor<2x6xf32>
  %im4 = poot.reshape %imf : tensor<2x6xf32> -> tensor<2x1x1x6xf32>
  %tril = poot.constant dense<[[[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 0.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 0.0], [1.0, 1.0, 1.0, 1.0, 1.0, 1.0]]]]> : tensor<1x1x6x6xf32>
  %mask = poot.mul %im4, %tril : tensor<2x1x1x6xf32>, tensor<1x1x6x6xf32>
  // einsum('...thd,...Thd->...htT')
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x6x4x16xf32>
  %lg0 = poot.matmul %qh, %kh : tensor<2x4x6x16xf32>, tensor<2x4x16x6xf32>
  %sk = poot.constant dense<4.0> : tensor<f32>
  %lg = poot.div %lg0, %sk : tensor<2x4x6x6xf32>, tensor<f32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %cond = poot.compare ne, %mask, %zf : tensor<2x1x6x6xf32>, tensor<f32>
  %big = poot.constant dense<-1.0e+30> : tensor<f32>
  %lm = poot.select %cond, %lg, %big : tensor<2x1x6x6xi1>, tensor<2x4x6x6xf32>, tensor<f32>
  %mx = poot.reduce_max %lm {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %d = poot.sub %lm, %mx : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  %e = poot.exp %d : tensor<2x4x6x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x6x6xf32>
  %w = poot.div %e, %zs : tensor<2x4x6x6xf32>, tensor<2x4x6x1xf32>
  // einsum('...htT,...Thd->...thd')
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<2x6x4x16xf32>
  %a = poot.matmul %w, %vh : tensor<2x4x6x6xf32>, tensor<2x4x6x16xf32>
  %at = poot.transpose %a {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x6x16xf32>
  %out = poot.reshape %at : tensor<2x6x4x16xf32> -> tensor<2x6x64xf32>
  return %out : tensor<2x6x64xf32>
}
