// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-rope --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// huggingface/transformers 4.45.2, src/transformers/models/qwen2_vl/
// modeling_qwen2_vl.py, VisionAttention.forward (the eager vision
// attention of the Qwen2-VL ViT, attn_implementation="eager"), an f32
// model. The packed patch sequence of several images, no batch axis:
// q, k, v = self.qkv(hidden_states).reshape(S, 3, H, -1).permute(1, 0, 2,
// 3).unbind(0) (the qkv linear is left outside: its output is the input);
// apply_rotary_pos_emb_vision(q.unsqueeze(0), rotary_pos_emb).squeeze(0)
// and the same for k: tensor.float(), cos = freqs.cos(), sin =
// freqs.sin(), cos.unsqueeze(1).repeat(1, 1, 2).unsqueeze(0).float()
// (the [S, D/2] 2-D (h, w) frequencies tiled twice), tensor * cos +
// rotate_half(tensor) * sin, .to(orig_dtype); the mask attention_mask =
// torch.full([1, S, S], finfo(f32).min), then for i in range(1,
// len(cu_seqlens)): attention_mask[..., cu_seqlens[i - 1]:cu_seqlens[i],
// cu_seqlens[i - 1]:cu_seqlens[i]] = 0, one in-place block write per
// image, written here as a select of 0 over the block's rows and columns
// (iota compares against the run-time cu_seqlens, int32 as
// VisionTransformer.forward builds it by cumsum and F.pad) on the previous
// mask; q, k, v .transpose(0, 1) to [H, S, D]; matmul(q, k.transpose(1,
// 2)) / math.sqrt(head_dim); + attention_mask; softmax(dim=-1,
// dtype=f32).to(q.dtype); matmul with v; transpose(0, 1).reshape(S, -1)
// (proj is left outside). S = 12 patches, 3 images (cu_seqlens [4],
// entries in [0, 12]), dim 64 = 4 heads of 16.
//
// Strongest form: two rotate-half rotaries (rotary_dim 16) on q and k, then
// one fused op over the unbatched heads with the block-diagonal additive
// mask as a tensor mask shared by every head ([1, 1, S, S]: its 0 /
// finfo.min values are added as the graph adds them; a row outside every
// block is averaged by both), scale 1/4, n_rep 1. The fused op has no
// document/segment meaning to carry cu_seqlens as anything but a tensor.

// CHECK-LABEL: func.func @hf_qwen2vl_vision_attention_eager_cu_seqlens_block_diag_finfo_min_rope_unbatched_f32
// CHECK-COUNT-2: poot.rope {{.+}} {rotary_dim = 16 : i64, style = "half"}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<1x1x12x12xf32>) {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, tensor mask{{$}}
func.func @hf_qwen2vl_vision_attention_eager_cu_seqlens_block_diag_finfo_min_rope_unbatched_f32(
    %qkv_out: tensor<12x192xf32>, %rotary_pos_emb: tensor<12x8xf32>,
    %cu_seqlens: tensor<4xi32> {poot.name = "cu_seqlens", poot.range = array<i64: 0, 13>}) -> tensor<12x64xf32> {
  // qkv(hidden_states).reshape(seq_length, 3, self.num_heads, -1).permute(1, 0, 2, 3).unbind(0)
  %qkv4 = poot.reshape %qkv_out : tensor<12x192xf32> -> tensor<12x3x4x16xf32>
  %qkv = poot.transpose %qkv4 {perm = array<i64: 1, 0, 2, 3>} : tensor<12x3x4x16xf32>
  %qs = poot.slice %qkv {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 12, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x12x4x16xf32>
  %q0 = poot.reshape %qs : tensor<1x12x4x16xf32> -> tensor<12x4x16xf32>
  %ks = poot.slice %qkv {start = array<i64: 1, 0, 0, 0>, limit = array<i64: 2, 12, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x12x4x16xf32>
  %k0 = poot.reshape %ks : tensor<1x12x4x16xf32> -> tensor<12x4x16xf32>
  %vs = poot.slice %qkv {start = array<i64: 2, 0, 0, 0>, limit = array<i64: 3, 12, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<3x12x4x16xf32>
  %v0 = poot.reshape %vs : tensor<1x12x4x16xf32> -> tensor<12x4x16xf32>
  // apply_rotary_pos_emb_vision(q.unsqueeze(0), rotary_pos_emb).squeeze(0)
  %qu = poot.reshape %q0 : tensor<12x4x16xf32> -> tensor<1x12x4x16xf32>
  %qcos0 = poot.cos %rotary_pos_emb : tensor<12x8xf32>
  %qsin0 = poot.sin %rotary_pos_emb : tensor<12x8xf32>
  // cos.unsqueeze(1).repeat(1, 1, 2).unsqueeze(0)
  %qcos1 = poot.reshape %qcos0 : tensor<12x8xf32> -> tensor<12x1x8xf32>
  %qcos2 = poot.concat %qcos1, %qcos1 {axis = 2 : i64} : tensor<12x1x8xf32>, tensor<12x1x8xf32>
  %qcos = poot.reshape %qcos2 : tensor<12x1x16xf32> -> tensor<1x12x1x16xf32>
  %qsin1 = poot.reshape %qsin0 : tensor<12x8xf32> -> tensor<12x1x8xf32>
  %qsin2 = poot.concat %qsin1, %qsin1 {axis = 2 : i64} : tensor<12x1x8xf32>, tensor<12x1x8xf32>
  %qsin = poot.reshape %qsin2 : tensor<12x1x16xf32> -> tensor<1x12x1x16xf32>
  // (tensor * cos) + (rotate_half(tensor) * sin)
  %qx1 = poot.slice %qu {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 12, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x4x16xf32>
  %qx2 = poot.slice %qu {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 12, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x4x16xf32>
  %qnx2 = poot.neg %qx2 : tensor<1x12x4x8xf32>
  %qrot = poot.concat %qnx2, %qx1 {axis = 3 : i64} : tensor<1x12x4x8xf32>, tensor<1x12x4x8xf32>
  %qa = poot.mul %qu, %qcos : tensor<1x12x4x16xf32>, tensor<1x12x1x16xf32>
  %qb = poot.mul %qrot, %qsin : tensor<1x12x4x16xf32>, tensor<1x12x1x16xf32>
  %qe = poot.add %qa, %qb : tensor<1x12x4x16xf32>, tensor<1x12x4x16xf32>
  %q1 = poot.reshape %qe : tensor<1x12x4x16xf32> -> tensor<12x4x16xf32>
  // apply_rotary_pos_emb_vision(k.unsqueeze(0), rotary_pos_emb).squeeze(0)
  %ku = poot.reshape %k0 : tensor<12x4x16xf32> -> tensor<1x12x4x16xf32>
  %kcos0 = poot.cos %rotary_pos_emb : tensor<12x8xf32>
  %ksin0 = poot.sin %rotary_pos_emb : tensor<12x8xf32>
  // cos.unsqueeze(1).repeat(1, 1, 2).unsqueeze(0)
  %kcos1 = poot.reshape %kcos0 : tensor<12x8xf32> -> tensor<12x1x8xf32>
  %kcos2 = poot.concat %kcos1, %kcos1 {axis = 2 : i64} : tensor<12x1x8xf32>, tensor<12x1x8xf32>
  %kcos = poot.reshape %kcos2 : tensor<12x1x16xf32> -> tensor<1x12x1x16xf32>
  %ksin1 = poot.reshape %ksin0 : tensor<12x8xf32> -> tensor<12x1x8xf32>
  %ksin2 = poot.concat %ksin1, %ksin1 {axis = 2 : i64} : tensor<12x1x8xf32>, tensor<12x1x8xf32>
  %ksin = poot.reshape %ksin2 : tensor<12x1x16xf32> -> tensor<1x12x1x16xf32>
  // (tensor * cos) + (rotate_half(tensor) * sin)
  %kx1 = poot.slice %ku {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 12, 4, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x4x16xf32>
  %kx2 = poot.slice %ku {start = array<i64: 0, 0, 0, 8>, limit = array<i64: 1, 12, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x12x4x16xf32>
  %knx2 = poot.neg %kx2 : tensor<1x12x4x8xf32>
  %krot = poot.concat %knx2, %kx1 {axis = 3 : i64} : tensor<1x12x4x8xf32>, tensor<1x12x4x8xf32>
  %ka = poot.mul %ku, %kcos : tensor<1x12x4x16xf32>, tensor<1x12x1x16xf32>
  %kb = poot.mul %krot, %ksin : tensor<1x12x4x16xf32>, tensor<1x12x1x16xf32>
  %ke = poot.add %ka, %kb : tensor<1x12x4x16xf32>, tensor<1x12x4x16xf32>
  %k1 = poot.reshape %ke : tensor<1x12x4x16xf32> -> tensor<12x4x16xf32>
  // attention_mask = torch.full([1, seq_length, seq_length], torch.finfo(q.dtype).min)
  %m0 = poot.constant dense<-3.40282347E+38> : tensor<1x12x12xf32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %row = poot.iota {dim = 1 : i64} : tensor<1x12x12xi32>
  %col = poot.iota {dim = 2 : i64} : tensor<1x12x12xi32>
  %cus0 = poot.slice %cu_seqlens {start = array<i64: 0>, limit = array<i64: 1>, step = array<i64: 1>} : tensor<4xi32>
  %cu0 = poot.reshape %cus0 : tensor<1xi32> -> tensor<i32>
  %cus1 = poot.slice %cu_seqlens {start = array<i64: 1>, limit = array<i64: 2>, step = array<i64: 1>} : tensor<4xi32>
  %cu1 = poot.reshape %cus1 : tensor<1xi32> -> tensor<i32>
  %cus2 = poot.slice %cu_seqlens {start = array<i64: 2>, limit = array<i64: 3>, step = array<i64: 1>} : tensor<4xi32>
  %cu2 = poot.reshape %cus2 : tensor<1xi32> -> tensor<i32>
  %cus3 = poot.slice %cu_seqlens {start = array<i64: 3>, limit = array<i64: 4>, step = array<i64: 1>} : tensor<4xi32>
  %cu3 = poot.reshape %cus3 : tensor<1xi32> -> tensor<i32>
  // attention_mask[..., cu_seqlens[0] : cu_seqlens[1], cu_seqlens[0] : cu_seqlens[1]] = 0
  %rlo1 = poot.compare ge, %row, %cu0 : tensor<1x12x12xi32>, tensor<i32>
  %rhi1 = poot.compare lt, %row, %cu1 : tensor<1x12x12xi32>, tensor<i32>
  %rin1 = poot.and %rlo1, %rhi1 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %clo1 = poot.compare ge, %col, %cu0 : tensor<1x12x12xi32>, tensor<i32>
  %chi1 = poot.compare lt, %col, %cu1 : tensor<1x12x12xi32>, tensor<i32>
  %cin1 = poot.and %clo1, %chi1 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %blk1 = poot.and %rin1, %cin1 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %m1 = poot.select %blk1, %zero, %m0 : tensor<1x12x12xi1>, tensor<f32>, tensor<1x12x12xf32>
  // attention_mask[..., cu_seqlens[1] : cu_seqlens[2], cu_seqlens[1] : cu_seqlens[2]] = 0
  %rlo2 = poot.compare ge, %row, %cu1 : tensor<1x12x12xi32>, tensor<i32>
  %rhi2 = poot.compare lt, %row, %cu2 : tensor<1x12x12xi32>, tensor<i32>
  %rin2 = poot.and %rlo2, %rhi2 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %clo2 = poot.compare ge, %col, %cu1 : tensor<1x12x12xi32>, tensor<i32>
  %chi2 = poot.compare lt, %col, %cu2 : tensor<1x12x12xi32>, tensor<i32>
  %cin2 = poot.and %clo2, %chi2 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %blk2 = poot.and %rin2, %cin2 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %m2 = poot.select %blk2, %zero, %m1 : tensor<1x12x12xi1>, tensor<f32>, tensor<1x12x12xf32>
  // attention_mask[..., cu_seqlens[2] : cu_seqlens[3], cu_seqlens[2] : cu_seqlens[3]] = 0
  %rlo3 = poot.compare ge, %row, %cu2 : tensor<1x12x12xi32>, tensor<i32>
  %rhi3 = poot.compare lt, %row, %cu3 : tensor<1x12x12xi32>, tensor<i32>
  %rin3 = poot.and %rlo3, %rhi3 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %clo3 = poot.compare ge, %col, %cu2 : tensor<1x12x12xi32>, tensor<i32>
  %chi3 = poot.compare lt, %col, %cu3 : tensor<1x12x12xi32>, tensor<i32>
  %cin3 = poot.and %clo3, %chi3 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %blk3 = poot.and %rin3, %cin3 : tensor<1x12x12xi1>, tensor<1x12x12xi1>
  %m3 = poot.select %blk3, %zero, %m2 : tensor<1x12x12xi1>, tensor<f32>, tensor<1x12x12xf32>
  // q = q.transpose(0, 1); k, v likewise
  %qh = poot.transpose %q1 {perm = array<i64: 1, 0, 2>} : tensor<12x4x16xf32>
  %kh = poot.transpose %k1 {perm = array<i64: 1, 0, 2>} : tensor<12x4x16xf32>
  %vh = poot.transpose %v0 {perm = array<i64: 1, 0, 2>} : tensor<12x4x16xf32>
  // attn_weights = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(self.head_dim)
  %kt = poot.transpose %kh {perm = array<i64: 0, 2, 1>} : tensor<4x12x16xf32>
  %s0 = poot.matmul %qh, %kt : tensor<4x12x16xf32>, tensor<4x16x12xf32>
  %sq = poot.constant dense<4.0> : tensor<f32>
  %s1 = poot.div %s0, %sq : tensor<4x12x12xf32>, tensor<f32>
  // attn_weights = attn_weights + attention_mask
  %s = poot.add %s1, %m3 : tensor<4x12x12xf32>, tensor<1x12x12xf32>
  // nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
  %mx = poot.reduce_max %s {axis = 2 : i64, keepdim} : tensor<4x12x12xf32>
  %d = poot.sub %s, %mx : tensor<4x12x12xf32>, tensor<4x12x1xf32>
  %e = poot.exp %d : tensor<4x12x12xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x12x12xf32>
  %p = poot.div %e, %z : tensor<4x12x12xf32>, tensor<4x12x1xf32>
  // attn_output = torch.matmul(attn_weights, v); transpose(0, 1); reshape(seq_length, -1)
  %o0 = poot.matmul %p, %vh : tensor<4x12x12xf32>, tensor<4x12x16xf32>
  %o1 = poot.transpose %o0 {perm = array<i64: 1, 0, 2>} : tensor<4x12x16xf32>
  %out = poot.reshape %o1 : tensor<12x4x16xf32> -> tensor<12x64xf32>
  return %out : tensor<12x64xf32>
}
