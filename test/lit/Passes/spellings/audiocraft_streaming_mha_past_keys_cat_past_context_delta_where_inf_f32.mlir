// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Meta AudioCraft (audiocraft/modules/transformer.py,
// StreamingMultiheadAttention.forward with custom=True, causal=True,
// past_context=5, memory_efficient=False, kv_repeat=1, no rope), one
// streaming step of T = 3 new frames with 5 past keys in the streaming
// state, f32. The packed projection is rearranged "b t (p h d) -> b t p h
// d" and unbound along p; _complete_kv concatenates the stored past keys
// and values in front along the time dim (layout "b t h d"). _get_mask:
// queries_pos = arange(past, past + T).view(-1, 1), keys_pos = arange(past
// + T).view(1, -1), delta = queries_pos - keys_pos, valid = delta >= 0,
// valid &= delta <= past_context, where(valid, zeros([]), full([], -inf)).
// Then q = q / q.shape[-1] ** 0.5; pre_w = einsum("b t h d,b k h d->b h t
// k", q, k); pre_w + attn_mask; softmax(dim=-1); .to(v); x = einsum("b h t
// k,b k h d->b t h d", w, v); rearrange "b t h d -> b t (h d)". Query row
// i sits at position 5 + i and sees keys 5 + i - 5 .. 5 + i: causal at the
// static offset 5 with a window of 6 keys. Strongest form: causal,
// window = 6, at offset 5, scale 1/4, n_rep 1. B = 1, H = 4, d = 16.

// CHECK-LABEL: func.func @audiocraft_streaming_mha_past_keys_cat_past_context_delta_where_inf_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64, window = 6 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal, window 6 at offset 5{{$}}
func.func @audiocraft_streaming_mha_past_keys_cat_past_context_delta_where_inf_f32(
    %projected: tensor<1x3x192xf32>, %past_keys: tensor<1x5x4x16xf32>,
    %past_values: tensor<1x5x4x16xf32>) -> tensor<1x3x64xf32> {
  // rearrange(projected, "b t (p h d) -> b t p h d", p=3); unbind(dim=2)
  %packed = poot.reshape %projected : tensor<1x3x192xf32> -> tensor<1x3x3x4x16xf32>
  %q5 = poot.slice %packed {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 3, 1, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x3x3x4x16xf32>
  %k5 = poot.slice %packed {start = array<i64: 0, 0, 1, 0, 0>, limit = array<i64: 1, 3, 2, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x3x3x4x16xf32>
  %v5 = poot.slice %packed {start = array<i64: 0, 0, 2, 0, 0>, limit = array<i64: 1, 3, 3, 4, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x3x3x4x16xf32>
  %q = poot.reshape %q5 : tensor<1x3x1x4x16xf32> -> tensor<1x3x4x16xf32>
  %kn = poot.reshape %k5 : tensor<1x3x1x4x16xf32> -> tensor<1x3x4x16xf32>
  %vn = poot.reshape %v5 : tensor<1x3x1x4x16xf32> -> tensor<1x3x4x16xf32>
  // _complete_kv: torch.cat([pk, k], dim=time_dim)
  %k = poot.concat %past_keys, %kn {axis = 1 : i64} : tensor<1x5x4x16xf32>, tensor<1x3x4x16xf32>
  %v = poot.concat %past_values, %vn {axis = 1 : i64} : tensor<1x5x4x16xf32>, tensor<1x3x4x16xf32>
  // _get_mask(current_steps=3) with past_steps = 5
  %qp0 = poot.iota {dim = 0 : i64} : tensor<3xi64>
  %past = poot.constant dense<5> : tensor<i64>
  %qp1 = poot.add %qp0, %past : tensor<3xi64>, tensor<i64>
  %queries_pos = poot.reshape %qp1 : tensor<3xi64> -> tensor<3x1xi64>
  %keys_pos = poot.iota {dim = 1 : i64} : tensor<1x8xi64>
  %delta = poot.sub %queries_pos, %keys_pos : tensor<3x1xi64>, tensor<1x8xi64>
  %zi = poot.constant dense<0> : tensor<i64>
  %valid0 = poot.compare ge, %delta, %zi : tensor<3x8xi64>, tensor<i64>
  %ctx = poot.constant dense<5> : tensor<i64>
  %inctx = poot.compare le, %delta, %ctx : tensor<3x8xi64>, tensor<i64>
  %valid = poot.and %valid0, %inctx : tensor<3x8xi1>, tensor<3x8xi1>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %attn_mask = poot.select %valid, %zero, %ninf : tensor<3x8xi1>, tensor<f32>, tensor<f32>
  // q = q / q.shape[-1] ** 0.5
  %sq = poot.constant dense<4.0> : tensor<f32>
  %qs = poot.div %q, %sq : tensor<1x3x4x16xf32>, tensor<f32>
  // einsum("b t h d,b k h d->b h t k")
  %qh = poot.transpose %qs {perm = array<i64: 0, 2, 1, 3>} : tensor<1x3x4x16xf32>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x4x16xf32>
  %pre_w = poot.matmul %qh, %kh : tensor<1x4x3x16xf32>, tensor<1x4x16x8xf32>
  %pw = poot.add %pre_w, %attn_mask : tensor<1x4x3x8xf32>, tensor<3x8xf32>
  %m = poot.reduce_max %pw {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %d = poot.sub %pw, %m : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  %e = poot.exp %d : tensor<1x4x3x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x3x8xf32>
  %w = poot.div %e, %z : tensor<1x4x3x8xf32>, tensor<1x4x3x1xf32>
  // einsum("b h t k,b k h d->b t h d")
  %vh = poot.transpose %v {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x4x16xf32>
  %x = poot.matmul %w, %vh : tensor<1x4x3x8xf32>, tensor<1x4x8x16xf32>
  %xt = poot.transpose %x {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x3x16xf32>
  %out = poot.reshape %xt : tensor<1x3x4x16xf32> -> tensor<1x3x64xf32>
  return %out : tensor<1x3x64xf32>
}
