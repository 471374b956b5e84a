// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// google-deepmind/recurrentgemma recurrentgemma/torch/modules.py
// (LocalAttentionBlock.forward, forward pass without a cache): one key
// and value head (keys "... (n h) -> ... n h" with n = 1); _apply_rope on
// the first half of each head only (x_rope, x = chunk(inputs, 2); sin/cos
// of segment_pos * 1 / 10000**(2i / 16), .type_as(inputs); first_half *
// cos - second_half * sin, second_half * cos + first_half * sin, concat
// with the pass-through half); _compute_forward_pass_mask: segment_ids =
// cumsum(segment_pos == 0, -1) (a new document wherever the position
// restarts), positions = arange(T) per row, _compute_causal_mask: q_seg
// == k_seg and q_pos >= k_pos and q_pos <= k_pos + window_size (4);
// einsum("b t n h, b s n h -> b n t s") (the one key head broadcast over
// the query heads); * head_dim**-0.5; torch.where(mask[:, None], logits,
// -2.3819763e38); .type(f32); softmax; type_as(x); einsum("b n t s,
// b s n h -> b t n h"). The band is causal with window 5 and the segment
// compare stays a tensor; every row keeps its own key, so the finite fill
// hides exactly. cumsum is spelled as the masked row sum it computes.
// MQA 4/1, B = 2, T = 8, head_dim = 32 (rotary over 16).

// CHECK-LABEL: func.func @recurrentgemma_local_attention_segment_pos_mqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max}}
// CHECK: poot.attention {{.+}} mask({{.+}}) {causal, n_rep = 4 : i64, scale = 0.1767578125 : f64, window = 5 : i64}
// CHECK-NOT: poot.{{exp|reduce_max}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.176758, tensor mask, causal, window 5{{$}}
func.func @recurrentgemma_local_attention_segment_pos_mqa_bf16(
    %q0: tensor<2x8x4x32xbf16>, %k0: tensor<2x8x1x32xbf16>, %v0: tensor<2x8x1x32xbf16>,
    %segment_pos: tensor<2x8xi32> {poot.range = array<i64: 0, 8>}) -> tensor<2x8x128xbf16> {
  // _apply_rope tables: inv_frequencies = 1 / 10000 ** (2 * arange(8) / 16)
  %fr = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %two = poot.constant dense<2> : tensor<i64>
  %fr2 = poot.mul %fr, %two : tensor<8xi64>, tensor<i64>
  %fr2f = poot.convert %fr2 : tensor<8xi64> -> tensor<8xf32>
  %sixteen = poot.constant dense<16.0> : tensor<f32>
  %fexp = poot.div %fr2f, %sixteen : tensor<8xf32>, tensor<f32>
  %wl = poot.constant dense<10000.0> : tensor<f32>
  %timescale = poot.pow %wl, %fexp : tensor<f32>, tensor<8xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %invf = poot.div %onef, %timescale : tensor<f32>, tensor<8xf32>
  %posr = poot.reshape %segment_pos : tensor<2x8xi32> -> tensor<2x8x1x1xi32>
  %posf = poot.convert %posr : tensor<2x8x1x1xi32> -> tensor<2x8x1x1xf32>
  %sino = poot.mul %posf, %invf : tensor<2x8x1x1xf32>, tensor<8xf32>
  %sinf = poot.sin %sino : tensor<2x8x1x8xf32>
  %cosf = poot.cos %sino : tensor<2x8x1x8xf32>
  %sin = poot.convert %sinf : tensor<2x8x1x8xf32> -> tensor<2x8x1x8xbf16>
  %cos = poot.convert %cosf : tensor<2x8x1x8xf32> -> tensor<2x8x1x8xbf16>
  // _apply_rope(queries)
  %qfh = poot.slice %q0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 8, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x4x32xbf16>
  %qsh = poot.slice %q0 {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 8, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x4x32xbf16>
  %qx = poot.slice %q0 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 8, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x4x32xbf16>
  %qa = poot.mul %qfh, %cos : tensor<2x8x4x8xbf16>, tensor<2x8x1x8xbf16>
  %qb = poot.mul %qsh, %sin : tensor<2x8x4x8xbf16>, tensor<2x8x1x8xbf16>
  %qp1 = poot.sub %qa, %qb : tensor<2x8x4x8xbf16>, tensor<2x8x4x8xbf16>
  %qc = poot.mul %qsh, %cos : tensor<2x8x4x8xbf16>, tensor<2x8x1x8xbf16>
  %qd = poot.mul %qfh, %sin : tensor<2x8x4x8xbf16>, tensor<2x8x1x8xbf16>
  %qp2 = poot.add %qc, %qd : tensor<2x8x4x8xbf16>, tensor<2x8x4x8xbf16>
  %q = poot.concat %qp1, %qp2, %qx {axis = 3 : i64} : tensor<2x8x4x8xbf16>, tensor<2x8x4x8xbf16>, tensor<2x8x4x16xbf16>
  // _apply_rope(keys)
  %kfh = poot.slice %k0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 2, 8, 1, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x1x32xbf16>
  %ksh = poot.slice %k0 {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 2, 8, 1, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x1x32xbf16>
  %kx = poot.slice %k0 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 2, 8, 1, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<2x8x1x32xbf16>
  %ka = poot.mul %kfh, %cos : tensor<2x8x1x8xbf16>, tensor<2x8x1x8xbf16>
  %kb = poot.mul %ksh, %sin : tensor<2x8x1x8xbf16>, tensor<2x8x1x8xbf16>
  %kp1 = poot.sub %ka, %kb : tensor<2x8x1x8xbf16>, tensor<2x8x1x8xbf16>
  %kc = poot.mul %ksh, %cos : tensor<2x8x1x8xbf16>, tensor<2x8x1x8xbf16>
  %kd = poot.mul %kfh, %sin : tensor<2x8x1x8xbf16>, tensor<2x8x1x8xbf16>
  %kp2 = poot.add %kc, %kd : tensor<2x8x1x8xbf16>, tensor<2x8x1x8xbf16>
  %k = poot.concat %kp1, %kp2, %kx {axis = 3 : i64} : tensor<2x8x1x8xbf16>, tensor<2x8x1x8xbf16>, tensor<2x8x1x16xbf16>
  // _compute_forward_pass_mask: segment_ids = cumsum(segment_pos == 0, dim=-1)
  %zi = poot.constant dense<0> : tensor<i32>
  %start = poot.compare eq, %segment_pos, %zi : tensor<2x8xi32>, tensor<i32>
  %starti = poot.convert %start : tensor<2x8xi1> -> tensor<2x8xi64>
  %ci = poot.iota {dim = 1 : i64} : tensor<1x8x8xi64>
  %cj = poot.iota {dim = 2 : i64} : tensor<1x8x8xi64>
  %win = poot.compare le, %cj, %ci : tensor<1x8x8xi64>, tensor<1x8x8xi64>
  %st3 = poot.reshape %starti : tensor<2x8xi64> -> tensor<2x1x8xi64>
  %z64 = poot.constant dense<0> : tensor<i64>
  %stw = poot.select %win, %st3, %z64 : tensor<1x8x8xi1>, tensor<2x1x8xi64>, tensor<i64>
  %segment_ids = poot.reduce_sum %stw {axis = 2 : i64} : tensor<2x8x8xi64>
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %ar2 = poot.reshape %ar : tensor<8xi64> -> tensor<1x8xi64>
  %positions = poot.broadcast %ar2 {shape = array<i64: 2, 8>} : tensor<1x8xi64>
  // _compute_causal_mask
  %sq = poot.reshape %segment_ids : tensor<2x8xi64> -> tensor<2x8x1xi64>
  %sk = poot.reshape %segment_ids : tensor<2x8xi64> -> tensor<2x1x8xi64>
  %same = poot.compare eq, %sq, %sk : tensor<2x8x1xi64>, tensor<2x1x8xi64>
  %pq = poot.reshape %positions : tensor<2x8xi64> -> tensor<2x8x1xi64>
  %pk = poot.reshape %positions : tensor<2x8xi64> -> tensor<2x1x8xi64>
  %causal = poot.compare ge, %pq, %pk : tensor<2x8x1xi64>, tensor<2x1x8xi64>
  %w = poot.constant dense<4> : tensor<i64>
  %pkw = poot.add %pk, %w : tensor<2x1x8xi64>, tensor<i64>
  %wcond = poot.compare le, %pq, %pkw : tensor<2x8x1xi64>, tensor<2x1x8xi64>
  %m0 = poot.and %causal, %wcond : tensor<2x8x8xi1>, tensor<2x8x8xi1>
  %mask = poot.and %same, %m0 : tensor<2x8x8xi1>, tensor<2x8x8xi1>
  // logits = einsum("b t n h, b s n h -> b n t s")
  %qh = poot.transpose %q {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x4x32xbf16>
  %kh = poot.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<2x8x1x32xbf16>
  %lg0 = poot.matmul %qh, %kh : tensor<2x4x8x32xbf16>, tensor<2x1x32x8xbf16>
  %hs = poot.constant dense<0.176776695> : tensor<bf16>
  %lg = poot.mul %lg0, %hs : tensor<2x4x8x8xbf16>, tensor<bf16>
  %m4 = poot.reshape %mask : tensor<2x8x8xi1> -> tensor<2x1x8x8xi1>
  %minl = poot.constant dense<-2.3819763e+38> : tensor<bf16>
  %ml = poot.select %m4, %lg, %minl : tensor<2x1x8x8xi1>, tensor<2x4x8x8xbf16>, tensor<bf16>
  %mlf = poot.convert %ml : tensor<2x4x8x8xbf16> -> tensor<2x4x8x8xf32>
  %mx = poot.reduce_max %mlf {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %d = poot.sub %mlf, %mx : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %e = poot.exp %d : tensor<2x4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x8x8xf32>
  %p = poot.div %e, %z : tensor<2x4x8x8xf32>, tensor<2x4x8x1xf32>
  %pb = poot.convert %p : tensor<2x4x8x8xf32> -> tensor<2x4x8x8xbf16>
  // encoded = einsum("b n t s, b s n h -> b t n h")
  %vh = poot.transpose %v0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x1x32xbf16>
  %en0 = poot.matmul %pb, %vh : tensor<2x4x8x8xbf16>, tensor<2x1x8x32xbf16>
  %en1 = poot.transpose %en0 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x8x32xbf16>
  %en = poot.reshape %en1 : tensor<2x8x4x32xbf16> -> tensor<2x8x128xbf16>
  return %en : tensor<2x8x128xbf16>
}
