// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers Cohere2 / Command R7B (models/cohere2/modeling_cohere2.py,
// 4.51/4.52: Cohere2DecoderLayer.forward, Cohere2Attention.forward,
// Cohere2Model._update_causal_mask), a sliding-window layer on a 6-token
// prefill into a HybridCache of max_cache_len 8, bf16. The causal mask is
// built as wide as the cache, [1, 1, 6, 8] (triu(full(finfo.min), 1) *
// (arange(8) > cache_position)); the decoder layer overlays the window with
// torch.where(tril(ones_like(mask, bool), diagonal=-4), min, mask) and
// slices it at offset = max(0, last_cache_position - effective_seq_len) = 0
// to effective_seq_len = max(6, 4) = 6 columns, the eager path slices it to
// the keys again. Only sliding layers get the rotary: interleaved,
// apply_rotary_pos_emb upcasts q and k to f32, rotate_half is
// stack([-x[..., 1::2], x[..., ::2]], -1).flatten(-2), then .to(bf16).
// repeat_kv GQA 4/2, matmul * scaling + mask, softmax(f32).to(bf16), @ v.
// D = 16, sliding_window 4.

// Strongest form: two interleaved rotaries, one attention, causal with
// window 4, n_rep 2, scale 0.25.
// CHECK-LABEL: func.func @hf_cohere2_sliding_layer_hybrid_cache_wide_mask_tril_ones_like_offset_slice_interleaved_rope_f32_upcast_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "interleaved"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 2.500000e-01 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.25, causal, window 4{{$}}
func.func @hf_cohere2_sliding_layer_hybrid_cache_wide_mask_tril_ones_like_offset_slice_interleaved_rope_f32_upcast_gqa_bf16(
    %q: tensor<1x4x6x16xbf16>,
    %k: tensor<1x2x6x16xbf16>,
    %v: tensor<1x2x6x16xbf16>,
    %cos0: tensor<1x6x16xbf16>,
    %sin0: tensor<1x6x16xbf16>)
    -> tensor<1x6x4x16xbf16> {
  // apply_rotary_pos_emb (only on sliding layers): q.float(), k.float(); cos, sin (repeat_interleave tables) unsqueezed at 1
  %cosu = poot.reshape %cos0 : tensor<1x6x16xbf16> -> tensor<1x1x6x16xbf16>
  %cos = poot.convert %cosu : tensor<1x1x6x16xbf16> -> tensor<1x1x6x16xf32>
  %sinu = poot.reshape %sin0 : tensor<1x6x16xbf16> -> tensor<1x1x6x16xbf16>
  %sin = poot.convert %sinu : tensor<1x1x6x16xbf16> -> tensor<1x1x6x16xf32>
  %qf = poot.convert %q : tensor<1x4x6x16xbf16> -> tensor<1x4x6x16xf32>
  // rotate_half: torch.stack([-x[..., 1::2], x[..., ::2]], dim=-1).flatten(-2)
  %qx1 = poot.slice %qf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 4, 6, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x6x16xf32>
  %qx2 = poot.slice %qf {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 4, 6, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x4x6x16xf32>
  %qnx2 = poot.neg %qx2 : tensor<1x4x6x8xf32>
  %qs1 = poot.reshape %qnx2 : tensor<1x4x6x8xf32> -> tensor<1x4x6x8x1xf32>
  %qs2 = poot.reshape %qx1 : tensor<1x4x6x8xf32> -> tensor<1x4x6x8x1xf32>
  %qst = poot.concat %qs1, %qs2 {axis = 4 : i64} : tensor<1x4x6x8x1xf32>, tensor<1x4x6x8x1xf32>
  %qrh = poot.reshape %qst : tensor<1x4x6x8x2xf32> -> tensor<1x4x6x16xf32>
  %qa = poot.mul %qf, %cos : tensor<1x4x6x16xf32>, tensor<1x1x6x16xf32>
  %qb = poot.mul %qrh, %sin : tensor<1x4x6x16xf32>, tensor<1x1x6x16xf32>
  %qe = poot.add %qa, %qb : tensor<1x4x6x16xf32>, tensor<1x4x6x16xf32>
  %qr = poot.convert %qe : tensor<1x4x6x16xf32> -> tensor<1x4x6x16xbf16>
  %kf = poot.convert %k : tensor<1x2x6x16xbf16> -> tensor<1x2x6x16xf32>
  // rotate_half: torch.stack([-x[..., 1::2], x[..., ::2]], dim=-1).flatten(-2)
  %kx1 = poot.slice %kf {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x6x16xf32>
  %kx2 = poot.slice %kf {start = array<i64: 0, 0, 0, 1>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 2>} : tensor<1x2x6x16xf32>
  %knx2 = poot.neg %kx2 : tensor<1x2x6x8xf32>
  %ks1 = poot.reshape %knx2 : tensor<1x2x6x8xf32> -> tensor<1x2x6x8x1xf32>
  %ks2 = poot.reshape %kx1 : tensor<1x2x6x8xf32> -> tensor<1x2x6x8x1xf32>
  %kst = poot.concat %ks1, %ks2 {axis = 4 : i64} : tensor<1x2x6x8x1xf32>, tensor<1x2x6x8x1xf32>
  %krh = poot.reshape %kst : tensor<1x2x6x8x2xf32> -> tensor<1x2x6x16xf32>
  %ka = poot.mul %kf, %cos : tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>
  %kb = poot.mul %krh, %sin : tensor<1x2x6x16xf32>, tensor<1x1x6x16xf32>
  %ke = poot.add %ka, %kb : tensor<1x2x6x16xf32>, tensor<1x2x6x16xf32>
  %kr = poot.convert %ke : tensor<1x2x6x16xf32> -> tensor<1x2x6x16xbf16>
  // _prepare_4d_causal_attention_mask_with_cache_position, HybridCache: target_length = max_cache_len = 8:
  // full((6, 8), finfo(bf16).min).triu(1) (traced constant) *= arange(8) > cache_position.reshape(-1, 1)
  %triu = poot.constant dense<[[0x0000, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0x0000, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0x0000, 0x0000, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0xFF7F, 0xFF7F]]> : tensor<6x8xbf16>
  %ar = poot.iota {dim = 0 : i64} : tensor<8xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cpr = poot.reshape %cp : tensor<6xi64> -> tensor<6x1xi64>
  %gt = poot.compare gt, %ar, %cpr : tensor<8xi64>, tensor<6x1xi64>
  %gtf = poot.convert %gt : tensor<6x8xi1> -> tensor<6x8xbf16>
  %cm2 = poot.mul %triu, %gtf : tensor<6x8xbf16>, tensor<6x8xbf16>
  %causal_mask = poot.reshape %cm2 : tensor<6x8xbf16> -> tensor<1x1x6x8xbf16>
  // Cohere2DecoderLayer (is_sliding): effective_seq_len = max(6, 4) = 6;
  // sliding_window_mask = torch.tril(torch.ones_like(attention_mask, dtype=torch.bool), diagonal=-4) (traced constant)
  %sliding_window_mask = poot.constant dense<[[[[false, false, false, false, false, false, false, false], [false, false, false, false, false, false, false, false], [false, false, false, false, false, false, false, false], [false, false, false, false, false, false, false, false], [true, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false]]]]> : tensor<1x1x6x8xi1>
  %min_dtype = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %swm = poot.select %sliding_window_mask, %min_dtype, %causal_mask : tensor<1x1x6x8xi1>, tensor<bf16>, tensor<1x1x6x8xbf16>
  // offset = max(0, last_cache_position - effective_seq_len) = 0: attention_mask[:, :, :, 0 : 6]
  %sw_slice = poot.slice %swm {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x6x8xbf16>
  // eager_attention_forward: causal_mask = attention_mask[:, :, :, : key_states.shape[-2]]; repeat_kv
  %cms = poot.slice %sw_slice {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 6>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x6x6xbf16>
  %krep5 = poot.reshape %kr : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %krepb = poot.broadcast %krep5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %krep = poot.reshape %krepb : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %vrep5 = poot.reshape %v : tensor<1x2x6x16xbf16> -> tensor<1x2x1x6x16xbf16>
  %vrepb = poot.broadcast %vrep5 {shape = array<i64: 1, 2, 2, 6, 16>} : tensor<1x2x1x6x16xbf16>
  %vrep = poot.reshape %vrepb : tensor<1x2x2x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %kt = poot.transpose %krep {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x16xbf16>
  %s = poot.matmul %qr, %kt : tensor<1x4x6x16xbf16>, tensor<1x4x16x6xbf16>
  %scaling = poot.constant dense<0.25> : tensor<bf16>
  %ss = poot.mul %s, %scaling : tensor<1x4x6x6xbf16>, tensor<bf16>
  %sm = poot.add %ss, %cms : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
  // softmax(dim=-1, dtype=float32).to(bf16)
  %x = poot.convert %sm : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %m = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %x, %m : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %pb = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  %o = poot.matmul %pb, %vrep : tensor<1x4x6x6xbf16>, tensor<1x4x6x16xbf16>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xbf16>
  return %ot : tensor<1x6x4x16xbf16>
}
