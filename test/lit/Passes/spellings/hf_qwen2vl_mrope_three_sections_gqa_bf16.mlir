// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// HF transformers 4.45 Qwen2-VL (models/qwen2_vl/modeling_qwen2_vl.py):
// Qwen2VLRotaryEmbedding.forward over the three rows (t, h, w) of
// position_ids [3, B, L]: inv_freq[None, None, :, None].expand(3, B, -1,
// 1) @ position_ids[:, :, None, :].float(), transpose(2, 3), emb =
// cat(freqs, freqs), cos/sin to bf16; apply_multimodal_rotary_pos_emb with
// mrope_section [4, 6, 6] (doubled): cos.split([4, 6, 6, 4, 6, 6], -1),
// piece i taken from row i % 3, cat, unsqueeze(1); q * cos +
// rotate_half(q) * sin. Qwen2VLAttention.forward (eager, bf16, so the
// fp16 isinf guard is not traced): repeat_kv; matmul(q, k^T) /
// sqrt(head_dim) + causal_mask, the 4.45 mask full(min).triu(1) *
// (arange(L) > cache_position) at cache_position = arange(L);
// softmax(dim=-1, dtype=f32).to(bf16); @ v. Each channel pair rotates by
// one position row: still RoPE per channel, with tables gathered from
// three position streams. GQA 6/2, B = 1, L = 6, D = 32.

// CHECK-LABEL: func.func @hf_qwen2vl_mrope_three_sections_gqa_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 32 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 3 : i64, scale = 0.1767{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.1767{{[0-9]*}}, causal{{$}}
func.func @hf_qwen2vl_mrope_three_sections_gqa_bf16(
    %q0: tensor<1x6x6x32xbf16>, %k0: tensor<1x2x6x32xbf16>, %v: tensor<1x2x6x32xbf16>,
    %position_ids: tensor<3x1x6xi64> {poot.range = array<i64: 0, 16>}) -> tensor<1x6x6x32xbf16> {
  // Qwen2VLRotaryEmbedding: inv_freq = 1 / 10000 ** (arange(0, 32, 2) / 32)
  %fi = poot.iota {dim = 0 : i64} : tensor<16xf32>
  %two = poot.constant dense<2.0> : tensor<f32>
  %f2 = poot.mul %fi, %two : tensor<16xf32>, tensor<f32>
  %dim = poot.constant dense<32.0> : tensor<f32>
  %fe = poot.div %f2, %dim : tensor<16xf32>, tensor<f32>
  %base = poot.constant dense<10000.0> : tensor<f32>
  %bp = poot.pow %base, %fe : tensor<f32>, tensor<16xf32>
  %onef = poot.constant dense<1.0> : tensor<f32>
  %inv_freq = poot.div %onef, %bp : tensor<f32>, tensor<16xf32>
  %if4 = poot.reshape %inv_freq : tensor<16xf32> -> tensor<1x1x16x1xf32>
  %ife = poot.broadcast %if4 {shape = array<i64: 3, 1, 16, 1>} : tensor<1x1x16x1xf32>
  %pidf = poot.convert %position_ids : tensor<3x1x6xi64> -> tensor<3x1x6xf32>
  %pe = poot.reshape %pidf : tensor<3x1x6xf32> -> tensor<3x1x1x6xf32>
  %fr0 = poot.matmul %ife, %pe : tensor<3x1x16x1xf32>, tensor<3x1x1x6xf32>
  %freqs = poot.transpose %fr0 {perm = array<i64: 0, 1, 3, 2>} : tensor<3x1x16x6xf32>
  %emb = poot.concat %freqs, %freqs {axis = 3 : i64} : tensor<3x1x6x16xf32>, tensor<3x1x6x16xf32>
  %cf = poot.cos %emb : tensor<3x1x6x32xf32>
  %sf = poot.sin %emb : tensor<3x1x6x32xf32>
  %cos3 = poot.convert %cf : tensor<3x1x6x32xf32> -> tensor<3x1x6x32xbf16>
  %sin3 = poot.convert %sf : tensor<3x1x6x32xf32> -> tensor<3x1x6x32xbf16>
  // apply_multimodal_rotary_pos_emb: split [4, 6, 6, 4, 6, 6], piece i from row i % 3
  %c0 = poot.slice %cos3 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %c1 = poot.slice %cos3 {start = array<i64: 1, 0, 0, 4>, limit = array<i64: 2, 1, 6, 10>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %c2 = poot.slice %cos3 {start = array<i64: 2, 0, 0, 10>, limit = array<i64: 3, 1, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %c3 = poot.slice %cos3 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 1, 6, 20>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %c4 = poot.slice %cos3 {start = array<i64: 1, 0, 0, 20>, limit = array<i64: 2, 1, 6, 26>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %c5 = poot.slice %cos3 {start = array<i64: 2, 0, 0, 26>, limit = array<i64: 3, 1, 6, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %cc = poot.concat %c0, %c1, %c2, %c3, %c4, %c5 {axis = 3 : i64} : tensor<1x1x6x4xbf16>, tensor<1x1x6x6xbf16>, tensor<1x1x6x6xbf16>, tensor<1x1x6x4xbf16>, tensor<1x1x6x6xbf16>, tensor<1x1x6x6xbf16>
  %s0 = poot.slice %sin3 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 1, 6, 4>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %s1 = poot.slice %sin3 {start = array<i64: 1, 0, 0, 4>, limit = array<i64: 2, 1, 6, 10>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %s2 = poot.slice %sin3 {start = array<i64: 2, 0, 0, 10>, limit = array<i64: 3, 1, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %s3 = poot.slice %sin3 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 1, 6, 20>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %s4 = poot.slice %sin3 {start = array<i64: 1, 0, 0, 20>, limit = array<i64: 2, 1, 6, 26>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %s5 = poot.slice %sin3 {start = array<i64: 2, 0, 0, 26>, limit = array<i64: 3, 1, 6, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<3x1x6x32xbf16>
  %ss = poot.concat %s0, %s1, %s2, %s3, %s4, %s5 {axis = 3 : i64} : tensor<1x1x6x4xbf16>, tensor<1x1x6x6xbf16>, tensor<1x1x6x6xbf16>, tensor<1x1x6x4xbf16>, tensor<1x1x6x6xbf16>, tensor<1x1x6x6xbf16>
  // (q * cos) + (rotate_half(q) * sin), cos/sin [1, 1, L, D]
  %qa1 = poot.slice %q0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 6, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x6x32xbf16>
  %qa2 = poot.slice %q0 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 6, 6, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x6x32xbf16>
  %nq = poot.neg %qa2 : tensor<1x6x6x16xbf16>
  %qrot = poot.concat %nq, %qa1 {axis = 3 : i64} : tensor<1x6x6x16xbf16>, tensor<1x6x6x16xbf16>
  %qc = poot.mul %q0, %cc : tensor<1x6x6x32xbf16>, tensor<1x1x6x32xbf16>
  %qs = poot.mul %qrot, %ss : tensor<1x6x6x32xbf16>, tensor<1x1x6x32xbf16>
  %q = poot.add %qc, %qs : tensor<1x6x6x32xbf16>, tensor<1x6x6x32xbf16>
  %ka1 = poot.slice %k0 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 6, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x32xbf16>
  %ka2 = poot.slice %k0 {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 2, 6, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x2x6x32xbf16>
  %nk = poot.neg %ka2 : tensor<1x2x6x16xbf16>
  %krot = poot.concat %nk, %ka1 {axis = 3 : i64} : tensor<1x2x6x16xbf16>, tensor<1x2x6x16xbf16>
  %kc = poot.mul %k0, %cc : tensor<1x2x6x32xbf16>, tensor<1x1x6x32xbf16>
  %ks = poot.mul %krot, %ss : tensor<1x2x6x32xbf16>, tensor<1x1x6x32xbf16>
  %k = poot.add %kc, %ks : tensor<1x2x6x32xbf16>, tensor<1x2x6x32xbf16>
  // repeat_kv
  %k5 = poot.reshape %k : tensor<1x2x6x32xbf16> -> tensor<1x2x1x6x32xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 3, 6, 32>} : tensor<1x2x1x6x32xbf16>
  %kr = poot.reshape %kb : tensor<1x2x3x6x32xbf16> -> tensor<1x6x6x32xbf16>
  %v5 = poot.reshape %v : tensor<1x2x6x32xbf16> -> tensor<1x2x1x6x32xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 3, 6, 32>} : tensor<1x2x1x6x32xbf16>
  %vr = poot.reshape %vb : tensor<1x2x3x6x32xbf16> -> tensor<1x6x6x32xbf16>
  // _prepare_4d_causal_attention_mask_with_cache_position
  %full = poot.constant dense<-3.38953139E+38> : tensor<6x6xbf16>
  %r = poot.iota {dim = 0 : i64} : tensor<6x6xi64>
  %cl = poot.iota {dim = 1 : i64} : tensor<6x6xi64>
  %dd = poot.sub %cl, %r : tensor<6x6xi64>, tensor<6x6xi64>
  %one = poot.constant dense<1> : tensor<i64>
  %up = poot.compare ge, %dd, %one : tensor<6x6xi64>, tensor<i64>
  %zb = poot.constant dense<0.0> : tensor<bf16>
  %triu = poot.select %up, %full, %zb : tensor<6x6xi1>, tensor<6x6xbf16>, tensor<bf16>
  %ar = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %cpr = poot.reshape %cp : tensor<6xi64> -> tensor<6x1xi64>
  %gt = poot.compare gt, %ar, %cpr : tensor<6xi64>, tensor<6x1xi64>
  %gtf = poot.convert %gt : tensor<6x6xi1> -> tensor<6x6xbf16>
  %cm = poot.mul %triu, %gtf : tensor<6x6xbf16>, tensor<6x6xbf16>
  %cm4 = poot.reshape %cm : tensor<6x6xbf16> -> tensor<1x1x6x6xbf16>
  // eager attention
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x6x6x32xbf16>
  %w0 = poot.matmul %q, %kt : tensor<1x6x6x32xbf16>, tensor<1x6x32x6xbf16>
  %sq = poot.constant dense<5.65685415> : tensor<bf16>
  %w1 = poot.div %w0, %sq : tensor<1x6x6x6xbf16>, tensor<bf16>
  %w = poot.add %w1, %cm4 : tensor<1x6x6x6xbf16>, tensor<1x1x6x6xbf16>
  %wf = poot.convert %w : tensor<1x6x6x6xbf16> -> tensor<1x6x6x6xf32>
  %mx = poot.reduce_max %wf {axis = 3 : i64, keepdim} : tensor<1x6x6x6xf32>
  %d = poot.sub %wf, %mx : tensor<1x6x6x6xf32>, tensor<1x6x6x1xf32>
  %e = poot.exp %d : tensor<1x6x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x6x6xf32>
  %p = poot.div %e, %z : tensor<1x6x6x6xf32>, tensor<1x6x6x1xf32>
  %pb = poot.convert %p : tensor<1x6x6x6xf32> -> tensor<1x6x6x6xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x6x6x6xbf16>, tensor<1x6x6x32xbf16>
  return %o : tensor<1x6x6x32xbf16>
}
