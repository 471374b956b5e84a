// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Qwen (v1) modeling_qwen.py, QWenAttention.forward and _attn (the Qwen-7B
// release that casts logn_tensor with type_as(query) and slices the
// registered causal mask), bf16, a 2-token chunk after a 4-token
// layer_past: c_attn output split into q, k, v and _split_heads ([b, s, h,
// d]); apply_rotary_pos_emb with rotary_pos_emb[:, -cur_len:] ([1, s, 1, d]
// f32 cos/sin): t.float(), t * cos + _rotate_half(t) * sin (rearrange
// '... (j d) -> ... j d', j=2, unbind, cat(-x2, x1)), type_as(t); key and
// value cat'd after the past on dim 1; use_logn_attn: query *=
// logn_tensor[:, kv_len - q_len : kv_len] (log_seq_length(i) for i >
// seq_length = 4, else 1); permute(0, 2, 1, 3); _attn: matmul(q, k^T) /
// torch.full([], sqrt(head_dim), bf16); torch.where(registered_causal_mask
// [:, :, 4:6, :6], w, finfo(bf16).min) with the bool tril buffer [1, 1, 8,
// 8]; softmax(w.float()).type(bf16); @ v; transpose(1, 2). MHA 4 heads,
// D = 32. The logn factor varies along the query rows only, so it stays on q.

// CHECK-LABEL: func.func @qwen1_logn_query_tril_buffer_past_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention {{.+}} {causal, n_rep = 1 : i64, scale = 0.17679{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.1767{{[0-9]*}}, causal at offset 4{{$}}
func.func @qwen1_logn_query_tril_buffer_past_bf16(
    %xq: tensor<1x2x4x32xbf16>, %xk: tensor<1x2x4x32xbf16>, %xv: tensor<1x2x4x32xbf16>,
    %past_k: tensor<1x4x4x32xbf16>, %past_v: tensor<1x4x4x32xbf16>,
    %cos_all: tensor<1x6x1x32xf32>, %sin_all: tensor<1x6x1x32xf32>) -> tensor<1x2x4x32xbf16> {
  %cos = poot.slice %cos_all {start = array<i64: 0, 4, 0, 0>, limit = array<i64: 1, 6, 1, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x1x32xf32>
  %sin = poot.slice %sin_all {start = array<i64: 0, 4, 0, 0>, limit = array<i64: 1, 6, 1, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x1x32xf32>
  // apply_rotary_pos_emb(query)
  %qf = poot.convert %xq : tensor<1x2x4x32xbf16> -> tensor<1x2x4x32xf32>
  %qj = poot.reshape %qf : tensor<1x2x4x32xf32> -> tensor<1x2x4x2x16xf32>
  %qx1 = poot.slice %qj {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 1, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x2x16xf32>
  %qx2 = poot.slice %qj {start = array<i64: 0, 0, 0, 1, 0>, limit = array<i64: 1, 2, 4, 2, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x2x16xf32>
  %qy1 = poot.reshape %qx1 : tensor<1x2x4x1x16xf32> -> tensor<1x2x4x16xf32>
  %qy2 = poot.reshape %qx2 : tensor<1x2x4x1x16xf32> -> tensor<1x2x4x16xf32>
  %qn2 = poot.neg %qy2 : tensor<1x2x4x16xf32>
  %qrot = poot.concat %qn2, %qy1 {axis = 3 : i64} : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %qa = poot.mul %qf, %cos : tensor<1x2x4x32xf32>, tensor<1x2x1x32xf32>
  %qb = poot.mul %qrot, %sin : tensor<1x2x4x32xf32>, tensor<1x2x1x32xf32>
  %qe = poot.add %qa, %qb : tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>
  %qr = poot.convert %qe : tensor<1x2x4x32xf32> -> tensor<1x2x4x32xbf16>
  // apply_rotary_pos_emb(key)
  %kf = poot.convert %xk : tensor<1x2x4x32xbf16> -> tensor<1x2x4x32xf32>
  %kj = poot.reshape %kf : tensor<1x2x4x32xf32> -> tensor<1x2x4x2x16xf32>
  %kx1 = poot.slice %kj {start = array<i64: 0, 0, 0, 0, 0>, limit = array<i64: 1, 2, 4, 1, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x2x16xf32>
  %kx2 = poot.slice %kj {start = array<i64: 0, 0, 0, 1, 0>, limit = array<i64: 1, 2, 4, 2, 16>, step = array<i64: 1, 1, 1, 1, 1>} : tensor<1x2x4x2x16xf32>
  %ky1 = poot.reshape %kx1 : tensor<1x2x4x1x16xf32> -> tensor<1x2x4x16xf32>
  %ky2 = poot.reshape %kx2 : tensor<1x2x4x1x16xf32> -> tensor<1x2x4x16xf32>
  %kn2 = poot.neg %ky2 : tensor<1x2x4x16xf32>
  %krot = poot.concat %kn2, %ky1 {axis = 3 : i64} : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>
  %ka = poot.mul %kf, %cos : tensor<1x2x4x32xf32>, tensor<1x2x1x32xf32>
  %kb = poot.mul %krot, %sin : tensor<1x2x4x32xf32>, tensor<1x2x1x32xf32>
  %ke = poot.add %ka, %kb : tensor<1x2x4x32xf32>, tensor<1x2x4x32xf32>
  %kr = poot.convert %ke : tensor<1x2x4x32xf32> -> tensor<1x2x4x32xbf16>
  // layer_past
  %key = poot.concat %past_k, %kr {axis = 1 : i64} : tensor<1x4x4x32xbf16>, tensor<1x2x4x32xbf16>
  %value = poot.concat %past_v, %xv {axis = 1 : i64} : tensor<1x4x4x32xbf16>, tensor<1x2x4x32xbf16>
  // use_logn_attn
  %logn_tensor = poot.constant dense<[[[[1.0]], [[1.0]], [[1.0]], [[1.0]], [[1.1609640474]], [[1.2924812504]], [[1.403677461]], [[1.5]]]]> : tensor<1x8x1x1xbf16>
  %logn = poot.slice %logn_tensor {start = array<i64: 0, 4, 0, 0>, limit = array<i64: 1, 6, 1, 1>, step = array<i64: 1, 1, 1, 1>} : tensor<1x8x1x1xbf16>
  %logb = poot.broadcast %logn {shape = array<i64: 1, 2, 4, 32>} : tensor<1x2x1x1xbf16>
  %ql = poot.mul %qr, %logb : tensor<1x2x4x32xbf16>, tensor<1x2x4x32xbf16>
  %q = poot.transpose %ql {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x32xbf16>
  %k = poot.transpose %key {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xbf16>
  %v = poot.transpose %value {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x32xbf16>
  // _attn
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x32xbf16>
  %w0 = poot.matmul %q, %kt : tensor<1x4x2x32xbf16>, tensor<1x4x32x6xbf16>
  %sqd = poot.constant dense<5.65625> : tensor<bf16>
  %w1 = poot.div %w0, %sqd : tensor<1x4x2x6xbf16>, tensor<bf16>
  %buf = poot.constant dense<[[[[true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false], [true, true, true, false, false, false, false, false], [true, true, true, true, false, false, false, false], [true, true, true, true, true, false, false, false], [true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true]]]]> : tensor<1x1x8x8xi1>
  %cmask = poot.slice %buf {start = array<i64: 0, 0, 4, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x8x8xi1>
  %minv = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %w2 = poot.select %cmask, %w1, %minv : tensor<1x1x2x6xi1>, tensor<1x4x2x6xbf16>, tensor<bf16>
  %x = poot.convert %w2 : tensor<1x4x2x6xbf16> -> tensor<1x4x2x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x2x6xf32>
  %d = poot.sub %x, %mx : tensor<1x4x2x6xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x6xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x6xf32>
  %p = poot.div %e, %zs : tensor<1x4x2x6xf32>, tensor<1x4x2x1xf32>
  %pb = poot.convert %p : tensor<1x4x2x6xf32> -> tensor<1x4x2x6xbf16>
  %o = poot.matmul %pb, %v : tensor<1x4x2x6xbf16>, tensor<1x4x6x32xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x32xbf16>
  return %ot : tensor<1x2x4x32xbf16>
}
