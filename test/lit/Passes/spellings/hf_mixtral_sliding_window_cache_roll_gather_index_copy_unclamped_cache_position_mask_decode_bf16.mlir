// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Hugging Face transformers Mixtral (models/mixtral/modeling_mixtral.py,
// 4.46-4.47: MixtralAttention.forward, eager; MixtralModel._update_causal_mask
// and _prepare_4d_causal_attention_mask_with_cache_position) decoding one
// token with the fixed-size SlidingWindowCache (cache_utils.py,
// generate(..., cache_implementation="sliding_window"), max_cache_len =
// sliding_window), bf16, called without an attention_mask. position_ids =
// cache_position.unsqueeze(0); MixtralRotaryEmbedding: inv_freq[None, :,
// None] @ position_ids[:, None, :].float() in f32, transpose(1, 2), emb =
// cat((freqs, freqs), -1), cos() * attention_scaling (1.0), .to(bf16);
// apply_rotary_pos_emb (rotate-half, unsqueeze_dim=1). SlidingWindowCache
// .update (a prompt no longer than the window): slicing = ones(W).cumsum(0)
// (traced to the constant 1..W); cache_position.clamp(0, W - 1); to_shift =
// cp >= W - 1; indices = (slicing + to_shift[-1].int() - 1) % W (the
// dialect has no remainder: written a - (a / W) * W, exact for these
// nonnegative a); k_out = key_cache[:, :, indices] (the ring rolled by one
// slot once it is full); k_out.index_copy_(2, cp, key_states); the stored
// cache becomes zero_() + k_out; v alike. The mask: target_length = W;
// causal_mask = full((1, W), finfo(bf16).min); diagonal_attend_mask =
// arange(W) > cache_position.reshape(-1, 1) (the unclamped position); the
// sliding part is skipped for a SlidingWindowCache with q_len <= W;
// causal_mask *= diagonal_attend_mask; [None, None].expand(B, 1, -1, -1).
// Eager attention: repeat_kv; matmul(q, k^T) / math.sqrt(head_dim);
// + causal_mask[:, :, :, :Lk]; softmax(dim=-1, dtype=f32).to(bf16); @ v;
// o_proj. W = 8, B = 1, 4 query heads, 2 key heads of 16, hidden 64.
//
// Strongest form: two rotate-half rotaries; one attention over the rolled
// and written cache (the gather and the index_copy stay in front of it)
// with causal from pos = cache_position: cache slot t is visible iff t <=
// pos, which is what the graph hides, for every position (once pos >= W - 1
// every slot is visible, as the full ring holds the last W tokens); key 0
// is always visible, so the finite fill hides keys; n_rep 2, scale 0.25.

// CHECK-LABEL: func.func @hf_mixtral_sliding_window_cache_roll_gather_index_copy_unclamped_cache_position_mask_decode_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}}) {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal from pos{{$}}
func.func @hf_mixtral_sliding_window_cache_roll_gather_index_copy_unclamped_cache_position_mask_decode_bf16(
    %h: tensor<1x1x64xbf16>, %wq: tensor<64x64xbf16>, %wk: tensor<32x64xbf16>,
    %wv: tensor<32x64xbf16>, %wo: tensor<64x64xbf16>,
    %key_cache: tensor<1x2x8x16xbf16> {poot.state = "key_cache"},
    %value_cache: tensor<1x2x8x16xbf16> {poot.state = "value_cache"},
    %cache_position: tensor<1xi64> {poot.slot = "pos", poot.range = array<i64: 0, 64>})
    -> (tensor<1x1x64xbf16>, tensor<1x2x8x16xbf16> {poot.state = "key_cache"},
        tensor<1x2x8x16xbf16> {poot.state = "value_cache"}) {
  // q_proj / k_proj / v_proj; view(bsz, q_len, heads, head_dim).transpose(1, 2)
  %wqt = poot.transpose %wq {perm = array<i64: 1, 0>} : tensor<64x64xbf16>
  %q0 = poot.matmul %h, %wqt : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  %q4 = poot.reshape %q0 : tensor<1x1x64xbf16> -> tensor<1x1x4x16xbf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x4x16xbf16>
  %wkt = poot.transpose %wk {perm = array<i64: 1, 0>} : tensor<32x64xbf16>
  %k0 = poot.matmul %h, %wkt : tensor<1x1x64xbf16>, tensor<64x32xbf16>
  %k4 = poot.reshape %k0 : tensor<1x1x32xbf16> -> tensor<1x1x2x16xbf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x16xbf16>
  %wvt = poot.transpose %wv {perm = array<i64: 1, 0>} : tensor<32x64xbf16>
  %v0 = poot.matmul %h, %wvt : tensor<1x1x64xbf16>, tensor<64x32xbf16>
  %v4 = poot.reshape %v0 : tensor<1x1x32xbf16> -> tensor<1x1x2x16xbf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x1x2x16xbf16>
  // MixtralRotaryEmbedding(value_states, position_ids = cache_position.unsqueeze(0)), rope_theta 1e6
  %inv_freq = poot.constant dense<[1.0, 0.177827939, 0.0316227786, 0.00562341325, 0.00100000005, 1.7782794E-4, 3.16227743E-5, 5.62341347E-6]> : tensor<8xf32>
  %ife = poot.reshape %inv_freq : tensor<8xf32> -> tensor<1x8x1xf32>
  %pid = poot.reshape %cache_position : tensor<1xi64> -> tensor<1x1x1xi64>
  %pidf = poot.convert %pid : tensor<1x1x1xi64> -> tensor<1x1x1xf32>
  %fr0 = poot.matmul %ife, %pidf : tensor<1x8x1xf32>, tensor<1x1x1xf32>
  %freqs = poot.transpose %fr0 {perm = array<i64: 0, 2, 1>} : tensor<1x8x1xf32>
  %emb = poot.concat %freqs, %freqs {axis = 2 : i64} : tensor<1x1x8xf32>, tensor<1x1x8xf32>
  %cosf = poot.cos %emb : tensor<1x1x16xf32>
  %sinf = poot.sin %emb : tensor<1x1x16xf32>
  %ascale = poot.constant dense<1.0> : tensor<f32>
  %cosa = poot.mul %cosf, %ascale : tensor<1x1x16xf32>, tensor<f32>
  %sina = poot.mul %sinf, %ascale : tensor<1x1x16xf32>, tensor<f32>
  %cos = poot.convert %cosa : tensor<1x1x16xf32> -> tensor<1x1x16xbf16>
  %sin = poot.convert %sina : tensor<1x1x16xf32> -> tensor<1x1x16xbf16>
  // apply_rotary_pos_emb(q, k, cos, sin): cos.unsqueeze(1)
  %c4 = poot.reshape %cos : tensor<1x1x16xbf16> -> tensor<1x1x1x16xbf16>
  %s4 = poot.reshape %sin : tensor<1x1x16xbf16> -> tensor<1x1x1x16xbf16>
  %qx1 = poot.slice %q {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 1, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x1x16xbf16>
  %qx2 = poot.slice %q {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 4, 1, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x4x1x16xbf16>
  %qn2 = poot.neg %qx2 : tensor<1x4x1x8xbf16>
  %qrh = poot.concat %qn2, %qx1 {axis = 3 : i64} : tensor<1x4x1x8xbf16>, tensor<1x4x1x8xbf16>
  %qa = poot.mul %q, %c4 : tensor<1x4x1x16xbf16>, tensor<1x1x1x16xbf16>
  %qb = poot.mul %qrh, %s4 : tensor<1x4x1x16xbf16>, tensor<1x1x1x16xbf16>
  %qr = poot.add %qa, %qb : tensor<1x4x1x16xbf16>, tensor<1x4x1x16xbf16>
  %kx1 = poot.slice %k {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 1, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x1x16xbf16>
  %kx2 = poot.slice %k {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 2, 1, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x1x16xbf16>
  %kn2 = poot.neg %kx2 : tensor<1x2x1x8xbf16>
  %krh = poot.concat %kn2, %kx1 {axis = 3 : i64} : tensor<1x2x1x8xbf16>, tensor<1x2x1x8xbf16>
  %ka = poot.mul %k, %c4 : tensor<1x2x1x16xbf16>, tensor<1x1x1x16xbf16>
  %kb = poot.mul %krh, %s4 : tensor<1x2x1x16xbf16>, tensor<1x1x1x16xbf16>
  %kr = poot.add %ka, %kb : tensor<1x2x1x16xbf16>, tensor<1x2x1x16xbf16>
  // SlidingWindowCache.update: slicing = torch.ones(W, dtype=long).cumsum(0)
  %slicing = poot.constant dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi64>
  // cache_position = cache_position.clamp(0, W - 1); to_shift = cache_position >= W - 1
  %c0 = poot.constant dense<0> : tensor<i64>
  %c7 = poot.constant dense<7> : tensor<i64>
  %cpmin = poot.min %cache_position, %c7 : tensor<1xi64>, tensor<i64>
  %cp = poot.max %cpmin, %c0 : tensor<1xi64>, tensor<i64>
  %to_shift = poot.compare ge, %cp, %c7 : tensor<1xi64>, tensor<i64>
  // indices = (slicing + to_shift[-1].int() - 1) % W
  %tsl = poot.reshape %to_shift : tensor<1xi1> -> tensor<i1>
  %tsi = poot.convert %tsl : tensor<i1> -> tensor<i32>
  %tsw = poot.convert %tsi : tensor<i32> -> tensor<i64>
  %ia = poot.add %slicing, %tsw : tensor<8xi64>, tensor<i64>
  %c1 = poot.constant dense<1> : tensor<i64>
  %ib = poot.sub %ia, %c1 : tensor<8xi64>, tensor<i64>
  %c8 = poot.constant dense<8> : tensor<i64>
  %iq = poot.div %ib, %c8 : tensor<8xi64>, tensor<i64>
  %iqm = poot.mul %iq, %c8 : tensor<8xi64>, tensor<i64>
  %indices = poot.sub %ib, %iqm : tensor<8xi64>, tensor<8xi64>
  // k_out = k_out[:, :, indices]; k_out.index_copy_(2, cache_position, key_states)
  %kroll = poot.gather %key_cache[%indices] {axis = 2 : i64} : tensor<1x2x8x16xbf16>, tensor<8xi64>
  %krt = poot.transpose %kroll {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x8x16xbf16>
  %knt = poot.transpose %kr {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x1x16xbf16>
  %kw = poot.scatter_update %krt[%cp], %knt : tensor<8x1x2x16xbf16>, tensor<1xi64>, tensor<1x1x2x16xbf16>
  %k_out = poot.transpose %kw {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x2x16xbf16>
  %vroll = poot.gather %value_cache[%indices] {axis = 2 : i64} : tensor<1x2x8x16xbf16>, tensor<8xi64>
  %vrt = poot.transpose %vroll {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x8x16xbf16>
  %vnt = poot.transpose %v {perm = array<i64: 2, 0, 1, 3>} : tensor<1x2x1x16xbf16>
  %vw = poot.scatter_update %vrt[%cp], %vnt : tensor<8x1x2x16xbf16>, tensor<1xi64>, tensor<1x1x2x16xbf16>
  %v_out = poot.transpose %vw {perm = array<i64: 1, 2, 0, 3>} : tensor<8x1x2x16xbf16>
  // self.key_cache[layer_idx].zero_(); self.key_cache[layer_idx] += k_out
  %zc = poot.constant dense<0.0> : tensor<1x2x8x16xbf16>
  %new_k = poot.add %zc, %k_out : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
  %new_v = poot.add %zc, %v_out : tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
  // _prepare_4d_causal_attention_mask_with_cache_position (target_length = W)
  %full = poot.constant dense<-3.38953139E+38> : tensor<1x8xbf16>
  %ar = poot.iota {dim = 1 : i64} : tensor<1x8xi64>
  %cpr = poot.reshape %cache_position : tensor<1xi64> -> tensor<1x1xi64>
  %diag = poot.compare gt, %ar, %cpr : tensor<1x8xi64>, tensor<1x1xi64>
  %diagf = poot.convert %diag : tensor<1x8xi1> -> tensor<1x8xbf16>
  %cm = poot.mul %full, %diagf : tensor<1x8xbf16>, tensor<1x8xbf16>
  %cm4 = poot.reshape %cm : tensor<1x8xbf16> -> tensor<1x1x1x8xbf16>
  // repeat_kv(key_states, 2), repeat_kv(value_states, 2)
  %k5 = poot.reshape %k_out : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %kbc = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %kk = poot.reshape %kbc : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  %v5 = poot.reshape %v_out : tensor<1x2x8x16xbf16> -> tensor<1x2x1x8x16xbf16>
  %vbc = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 8, 16>} : tensor<1x2x1x8x16xbf16>
  %vv = poot.reshape %vbc : tensor<1x2x2x8x16xbf16> -> tensor<1x4x8x16xbf16>
  // attn_weights = torch.matmul(query_states, key_states.transpose(2, 3)) / math.sqrt(self.head_dim)
  %kt = poot.transpose %kk {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x16xbf16>
  %s = poot.matmul %qr, %kt : tensor<1x4x1x16xbf16>, tensor<1x4x16x8xbf16>
  %sq = poot.constant dense<4.0> : tensor<bf16>
  %ss = poot.div %s, %sq : tensor<1x4x1x8xbf16>, tensor<bf16>
  // attn_weights + causal_mask[:, :, :, : key_states.shape[-2]]
  %sm = poot.add %ss, %cm4 : tensor<1x4x1x8xbf16>, tensor<1x1x1x8xbf16>
  // softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
  %sf = poot.convert %sm : tensor<1x4x1x8xbf16> -> tensor<1x4x1x8xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %d = poot.sub %sf, %mx : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %e = poot.exp %d : tensor<1x4x1x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x1x8xf32>
  %p = poot.div %e, %z : tensor<1x4x1x8xf32>, tensor<1x4x1x1xf32>
  %pb = poot.convert %p : tensor<1x4x1x8xf32> -> tensor<1x4x1x8xbf16>
  // attn_output = torch.matmul(attn_weights, value_states); transpose(1, 2); reshape; o_proj
  %o = poot.matmul %pb, %vv : tensor<1x4x1x8xbf16>, tensor<1x4x8x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x1x16xbf16>
  %o3 = poot.reshape %ot : tensor<1x1x4x16xbf16> -> tensor<1x1x64xbf16>
  %wot = poot.transpose %wo {perm = array<i64: 1, 0>} : tensor<64x64xbf16>
  %y = poot.matmul %o3, %wot : tensor<1x1x64xbf16>, tensor<64x64xbf16>
  return %y, %new_k, %new_v : tensor<1x1x64xbf16>, tensor<1x2x8x16xbf16>, tensor<1x2x8x16xbf16>
}
