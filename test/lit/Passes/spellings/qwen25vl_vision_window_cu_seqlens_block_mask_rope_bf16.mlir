// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.49 Qwen2.5-VL vision encoder (models/qwen2_5_vl/
// modeling_qwen2_5_vl.py, Qwen2_5_VLVisionAttention.forward, eager) in a
// window-attention block: qkv(hidden).reshape(S, 3, H, -1).permute(1, 0,
// 2, 3).unbind(0); apply_rotary_pos_emb_vision (q, k and the [S, D]
// cos/sin of cat(rotary_pos_emb, rotary_pos_emb) taken to f32, cos
// unsqueezed at -2, q * cos + rotate_half(q) * sin, back to bf16); the
// block-diagonal mask torch.full([1, S, S], finfo(bf16).min) with
// attention_mask[..., cu[i-1]:cu[i], cu[i-1]:cu[i]] = 0 for the window
// cu_seqlens [0, 4, 10, 12] (uneven windows, as get_window_index pads
// them), a trace-time constant; q, k, v transposed to [H, S, D];
// matmul(q, k.transpose(1, 2)) / sqrt(head_dim) + mask; softmax(dim=-1,
// dtype=f32).to(bf16); @ v; transpose(0, 1).reshape(S, -1). Unbatched
// rank 3; every row keeps its own window, so the finite fill is never the
// whole row. H = 2, S = 12, D = 40.

// CHECK-LABEL: func.func @qwen25vl_vision_window_cu_seqlens_block_mask_rope_bf16
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 40 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask({{.+}}) {n_rep = 1 : i64, scale = 0.158{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.158{{[0-9]*}}, tensor mask
func.func @qwen25vl_vision_window_cu_seqlens_block_mask_rope_bf16(
    %qkv0: tensor<12x240xbf16>, %cos0: tensor<12x40xf32>, %sin0: tensor<12x40xf32>) -> tensor<12x80xbf16> {
  %qkv1 = poot.reshape %qkv0 : tensor<12x240xbf16> -> tensor<12x3x2x40xbf16>
  %qkv = poot.transpose %qkv1 {perm = array<i64: 1, 0, 2, 3>} : tensor<12x3x2x40xbf16>
  %q3 = poot.slice %qkv {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 12, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<3x12x2x40xbf16>
  %k3 = poot.slice %qkv {start = array<i64: 1, 0, 0, 0>, limit = array<i64: 2, 12, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<3x12x2x40xbf16>
  %v3 = poot.slice %qkv {start = array<i64: 2, 0, 0, 0>, limit = array<i64: 3, 12, 2, 40>, step = array<i64: 1, 1, 1, 1>} : tensor<3x12x2x40xbf16>
  %q = poot.reshape %q3 : tensor<1x12x2x40xbf16> -> tensor<12x2x40xbf16>
  %k = poot.reshape %k3 : tensor<1x12x2x40xbf16> -> tensor<12x2x40xbf16>
  %v = poot.reshape %v3 : tensor<1x12x2x40xbf16> -> tensor<12x2x40xbf16>
  // apply_rotary_pos_emb_vision
  %qf = poot.convert %q : tensor<12x2x40xbf16> -> tensor<12x2x40xf32>
  %kf = poot.convert %k : tensor<12x2x40xbf16> -> tensor<12x2x40xf32>
  %cos = poot.reshape %cos0 : tensor<12x40xf32> -> tensor<12x1x40xf32>
  %sin = poot.reshape %sin0 : tensor<12x40xf32> -> tensor<12x1x40xf32>
  %q1 = poot.slice %qf {start = array<i64: 0, 0, 0>, limit = array<i64: 12, 2, 20>, step = array<i64: 1, 1, 1>} : tensor<12x2x40xf32>
  %q2 = poot.slice %qf {start = array<i64: 0, 0, 20>, limit = array<i64: 12, 2, 40>, step = array<i64: 1, 1, 1>} : tensor<12x2x40xf32>
  %nq2 = poot.neg %q2 : tensor<12x2x20xf32>
  %qrot = poot.concat %nq2, %q1 {axis = 2 : i64} : tensor<12x2x20xf32>, tensor<12x2x20xf32>
  %qa = poot.mul %qf, %cos : tensor<12x2x40xf32>, tensor<12x1x40xf32>
  %qb = poot.mul %qrot, %sin : tensor<12x2x40xf32>, tensor<12x1x40xf32>
  %qe = poot.add %qa, %qb : tensor<12x2x40xf32>, tensor<12x2x40xf32>
  %k1 = poot.slice %kf {start = array<i64: 0, 0, 0>, limit = array<i64: 12, 2, 20>, step = array<i64: 1, 1, 1>} : tensor<12x2x40xf32>
  %k2 = poot.slice %kf {start = array<i64: 0, 0, 20>, limit = array<i64: 12, 2, 40>, step = array<i64: 1, 1, 1>} : tensor<12x2x40xf32>
  %nk2 = poot.neg %k2 : tensor<12x2x20xf32>
  %krot = poot.concat %nk2, %k1 {axis = 2 : i64} : tensor<12x2x20xf32>, tensor<12x2x20xf32>
  %ka = poot.mul %kf, %cos : tensor<12x2x40xf32>, tensor<12x1x40xf32>
  %kb = poot.mul %krot, %sin : tensor<12x2x40xf32>, tensor<12x1x40xf32>
  %ke = poot.add %ka, %kb : tensor<12x2x40xf32>, tensor<12x2x40xf32>
  %qeb = poot.convert %qe : tensor<12x2x40xf32> -> tensor<12x2x40xbf16>
  %keb = poot.convert %ke : tensor<12x2x40xf32> -> tensor<12x2x40xbf16>
  // the block-diagonal mask of cu_seqlens [0, 4, 10, 12]
  %mask = poot.constant dense<[[[0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38], [0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38], [0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38], [0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -3.38953139E+38, -3.38953139E+38], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0], [-3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, -3.38953139E+38, 0.0, 0.0]]]> : tensor<1x12x12xbf16>
  // q, k, v .transpose(0, 1)
  %qh = poot.transpose %qeb {perm = array<i64: 1, 0, 2>} : tensor<12x2x40xbf16>
  %kh = poot.transpose %keb {perm = array<i64: 1, 0, 2>} : tensor<12x2x40xbf16>
  %vh = poot.transpose %v {perm = array<i64: 1, 0, 2>} : tensor<12x2x40xbf16>
  %kt = poot.transpose %kh {perm = array<i64: 0, 2, 1>} : tensor<2x12x40xbf16>
  %s0 = poot.matmul %qh, %kt : tensor<2x12x40xbf16>, tensor<2x40x12xbf16>
  %sq = poot.constant dense<6.32455532> : tensor<bf16>
  %s1 = poot.div %s0, %sq : tensor<2x12x12xbf16>, tensor<bf16>
  %s = poot.add %s1, %mask : tensor<2x12x12xbf16>, tensor<1x12x12xbf16>
  %sf = poot.convert %s : tensor<2x12x12xbf16> -> tensor<2x12x12xf32>
  %mx = poot.reduce_max %sf {axis = 2 : i64, keepdim} : tensor<2x12x12xf32>
  %d = poot.sub %sf, %mx : tensor<2x12x12xf32>, tensor<2x12x1xf32>
  %e = poot.exp %d : tensor<2x12x12xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<2x12x12xf32>
  %p = poot.div %e, %z : tensor<2x12x12xf32>, tensor<2x12x1xf32>
  %pb = poot.convert %p : tensor<2x12x12xf32> -> tensor<2x12x12xbf16>
  %o0 = poot.matmul %pb, %vh : tensor<2x12x12xbf16>, tensor<2x12x40xbf16>
  %o1 = poot.transpose %o0 {perm = array<i64: 1, 0, 2>} : tensor<2x12x40xbf16>
  %o = poot.reshape %o1 : tensor<12x2x40xbf16> -> tensor<12x80xbf16>
  return %o : tensor<12x80xbf16>
}
