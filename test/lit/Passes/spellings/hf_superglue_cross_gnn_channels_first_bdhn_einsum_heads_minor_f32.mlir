// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers SuperGlue (models/superglue/modeling_superglue.py,
// attention() as called by SuperGlueMultiHeadAttention.forward), a "cross"
// layer of SuperGlueAttentionalGNN: queries from the 5 keypoints of image 0,
// keys and values from the 7 of image 1, f32. Descriptors are channels-first
// [B, C, N] (Conv1d projections, inputs here) and the heads are split
// channel-minor: view(B, dim, num_heads, N), channel d * H + h (the
// magicleap layout), not head-major. scores = einsum('bdhn,bdhm->bhnm') /
// dim ** 0.5, softmax(dim=-1), einsum('bhnm,bdhm->bdhn', prob, value), the
// result viewed back [B, C, N] for the merge conv. The einsums are written
// as torch lowers them: operands permuted to [b, h, n, d] and [b, h, d, m],
// the product permuted to the output order. C = 32, H = 4, D = 8.

// Strongest form: one attention over the permuted views, no mask, n_rep 1,
// scale 8 ** -0.5.
// CHECK-LABEL: func.func @hf_superglue_cross_gnn_channels_first_bdhn_einsum_heads_minor_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.35355{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.35355{{[0-9]*}}{{$}}
func.func @hf_superglue_cross_gnn_channels_first_bdhn_einsum_heads_minor_f32(
    %query_proj: tensor<1x32x5xf32>,
    %key_proj: tensor<1x32x7xf32>,
    %value_proj: tensor<1x32x7xf32>)
    -> tensor<1x32x5xf32> {
  // SuperGlueMultiHeadAttention: layer(x).view(batch_dim, self.dim, self.num_heads, -1): channel = d * H + h
  %q = poot.reshape %query_proj : tensor<1x32x5xf32> -> tensor<1x8x4x5xf32>
  %k = poot.reshape %key_proj : tensor<1x32x7xf32> -> tensor<1x8x4x7xf32>
  %v = poot.reshape %value_proj : tensor<1x32x7xf32> -> tensor<1x8x4x7xf32>
  // attention(): scores = torch.einsum('bdhn,bdhm->bhnm', query, key) / dim ** 0.5 (dim = query.shape[1])
  %qt = poot.transpose %q {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x4x5xf32>
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x7xf32>
  %scores0 = poot.matmul %qt, %kt : tensor<1x4x5x8xf32>, tensor<1x4x8x7xf32>
  %sqrt_dim = poot.constant dense<2.82842708> : tensor<f32>
  %scores = poot.div %scores0, %sqrt_dim : tensor<1x4x5x7xf32>, tensor<f32>
  // prob = torch.nn.functional.softmax(scores, dim=-1)
  %m = poot.reduce_max %scores {axis = 3 : i64, keepdim} : tensor<1x4x5x7xf32>
  %d = poot.sub %scores, %m : tensor<1x4x5x7xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x7xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x7xf32>
  %prob = poot.div %e, %z : tensor<1x4x5x7xf32>, tensor<1x4x5x1xf32>
  // output = torch.einsum('bhnm,bdhm->bdhn', prob, value): bmm over (b, h) of prob and value as [b, h, m, d]
  %vt = poot.transpose %v {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x4x7xf32>
  %o = poot.matmul %prob, %vt : tensor<1x4x5x7xf32>, tensor<1x4x7x8xf32>
  %obdhn = poot.transpose %o {perm = array<i64: 0, 3, 1, 2>} : tensor<1x4x5x8xf32>
  // self.merge(x.contiguous().view(batch_dim, self.dim * self.num_heads, -1))
  %out = poot.reshape %obdhn : tensor<1x8x4x5xf32> -> tensor<1x32x5xf32>
  return %out : tensor<1x32x5xf32>
}
