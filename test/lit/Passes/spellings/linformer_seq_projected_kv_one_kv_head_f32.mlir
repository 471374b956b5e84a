// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// lucidrains/linformer (0.2.3), linformer/linformer.py,
// LinformerSelfAttention.forward, self-attention (context None),
// one_kv_head=True, share_kv=False, eval (dropout 0), f32. The to_q / to_k /
// to_v linears are left outside (queries [b, n, h * d_h], keys and values
// [b, n, d_h] since one_kv_head makes kv_dim = dim_head); proj_k and
// proj_v ([seq_len, k] parameters) are inputs; kv_len == seq_len so no
// slicing. keys, values = einsum('bnd,nk->bkd', t, proj) (torch lowers it
// to proj^T @ t over b); queries.reshape(b, n, h, -1).transpose(1, 2);
// merge_key_values: t.reshape(b, k, -1, d_h).transpose(1, 2).expand(-1, h,
// -1, -1) (one head expanded to all h); dots = einsum('bhnd,bhkd->bhnk',
// queries, keys) * self.scale (dim_head ** -0.5); dots.softmax(dim=-1);
// out = einsum('bhnk,bhkd->bhnd', attn, values); out.transpose(1, 2)
// .reshape(b, n, -1) (to_out left outside). b = 2, n = 8, h = 4,
// d_h = 16, k = 4.
//
// Strongest form: the sequence projections stay outside as matmuls; the
// attention over the k = 4 projected keys, no mask, one key/value head
// expanded to all 4 query heads: n_rep 4, scale 0.25:
//   poot.attention q, k, v {n_rep = 4 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x8x16xf32>, tensor<2x1x4x16xf32>, tensor<2x1x4x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-LABEL: func.func @linformer_seq_projected_kv_one_kv_head_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 4 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x8x16xf32>, tensor<2x1x4x16xf32>, tensor<2x1x4x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25{{$}}
func.func @linformer_seq_projected_kv_one_kv_head_f32(
    %queries_in: tensor<2x8x64xf32>, %keys_in: tensor<2x8x16xf32>, %values_in: tensor<2x8x16xf32>,
    %proj_k: tensor<8x4xf32>, %proj_v: tensor<8x4xf32>) -> tensor<2x8x64xf32> {
  // keys = einsum('bnd,nk->bkd', keys, proj_k)
  %pkt = poot.transpose %proj_k {perm = array<i64: 1, 0>} : tensor<8x4xf32>
  %pk3 = poot.reshape %pkt : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %pkb = poot.broadcast %pk3 {shape = array<i64: 2, 4, 8>} : tensor<1x4x8xf32>
  %keys = poot.matmul %pkb, %keys_in : tensor<2x4x8xf32>, tensor<2x8x16xf32>
  // values = einsum('bnd,nk->bkd', values, proj_v)
  %pvt = poot.transpose %proj_v {perm = array<i64: 1, 0>} : tensor<8x4xf32>
  %pv3 = poot.reshape %pvt : tensor<4x8xf32> -> tensor<1x4x8xf32>
  %pvb = poot.broadcast %pv3 {shape = array<i64: 2, 4, 8>} : tensor<1x4x8xf32>
  %values = poot.matmul %pvb, %values_in : tensor<2x4x8xf32>, tensor<2x8x16xf32>
  // queries = queries.reshape(b, n, h, -1).transpose(1, 2)
  %q4 = poot.reshape %queries_in : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x16xf32>
  // merge_key_values: t.reshape(b, k, -1, d_h).transpose(1, 2).expand(-1, h, -1, -1)
  %k4 = poot.reshape %keys : tensor<2x4x16xf32> -> tensor<2x4x1x16xf32>
  %kt1 = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x16xf32>
  %k = poot.broadcast %kt1 {shape = array<i64: 2, 4, 4, 16>} : tensor<2x1x4x16xf32>
  %v4 = poot.reshape %values : tensor<2x4x16xf32> -> tensor<2x4x1x16xf32>
  %vt1 = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x1x16xf32>
  %v = poot.broadcast %vt1 {shape = array<i64: 2, 4, 4, 16>} : tensor<2x1x4x16xf32>
  // dots = einsum('bhnd,bhkd->bhnk', queries, keys) * self.scale
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x4x16xf32>
  %dots0 = poot.matmul %q, %kt : tensor<2x4x8x16xf32>, tensor<2x4x16x4xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %dots = poot.mul %dots0, %scale : tensor<2x4x8x4xf32>, tensor<f32>
  // attn = dots.softmax(dim=-1)
  %mx = poot.reduce_max %dots {axis = 3 : i64, keepdim} : tensor<2x4x8x4xf32>
  %d = poot.sub %dots, %mx : tensor<2x4x8x4xf32>, tensor<2x4x8x1xf32>
  %e = poot.exp %d : tensor<2x4x8x4xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x8x4xf32>
  %attn = poot.div %e, %z : tensor<2x4x8x4xf32>, tensor<2x4x8x1xf32>
  // out = einsum('bhnk,bhkd->bhnd', attn, values)
  %o = poot.matmul %attn, %v : tensor<2x4x8x4xf32>, tensor<2x4x4x16xf32>
  // out.transpose(1, 2).reshape(b, n, -1)
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x16xf32>
  %out = poot.reshape %ot : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %out : tensor<2x8x64xf32>
}
