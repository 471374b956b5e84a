// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// huggingface/transformers (2023, at 0057454),
// src/transformers/models/gpt_bigcode/modeling_gpt_bigcode.py:
// GPTBigCodeAttention.forward and ._attn, eager, multi_query=True,
// StarCoder's defaults attention_softmax_in_fp32 = True and
// scale_attention_softmax_in_fp32 = True, f16 weights on GPU, layer_idx 3.
// forward: query, key_value = c_attn(h).split((E, 2 * kv_dim), dim=2) (the
// c_attn output is the input here); key_value = cat((layer_past,
// key_value), dim=-2) (layer_past is the MQA cache [B, past, 2 * D]);
// key, value = key_value.split((D, D), -1); _attn(query, key.transpose(-1,
// -2), value). _attn: upcast, so unscale = layer_idx + 1 = 4 and
// scale_factor = unscale ** -1 / sqrt(D) = 1/16; query.reshape(B, q * H,
// D); the GPU branch attn_weights = baddbmm(empty, query, key, beta=0,
// alpha=1/16).view(B, q, H, K); upcast_masked_softmax (torch.jit.script):
// x.to(f32) * unscale, where(mask, x, mask_value) with mask_value =
// full([], finfo(f32).min), softmax(dim=-1).to(f16); bmm(attn_weights
// .view(B, q * H, K), value).view(B, q, H * D). GPTBigCodeModel.forward,
// no attention_mask: self_attention_mask = self.bias[None, K - q : K, :K]
// (bias = tril(ones(max_positions, max_positions, bool)), a buffer of 16
// positions) .unsqueeze(2). present = key_value is returned (use_cache).
// B = 2, H = 4, D = 16, q = 4 new tokens after past = 4, K = 8.
//
// Strongest form: the rows q * H + h split back into [B, H, q, D] queries
// against the one key head: one fused op reading the key and value once,
// n_rep 4, causal at offset 4 (the tril rows 4..8; every row keeps key 0,
// so the finfo.min fill hides keys), scale 1/16 * 4 = 1/4, no tensor mask:
//   poot.attention q, k, v pos(4) {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64}
// CHECK-LABEL: func.func @hf_gpt_bigcode_mqa_past_cat_upcast_masked_softmax_layer_unscale_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 4 : i64, scale = 2.500000e-01 : f64} : tensor<2x4x4x16xf16>, tensor<2x1x8x16xf16>, tensor<2x1x8x16xf16> -> tensor<2x4x4x16xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 4, scale 0.25, causal at offset 4{{$}}
func.func @hf_gpt_bigcode_mqa_past_cat_upcast_masked_softmax_layer_unscale_f16(
    %c_attn_out: tensor<2x4x96xf16>, %layer_past: tensor<2x4x32xf16>)
    -> (tensor<2x4x64xf16>, tensor<2x8x32xf16>) {
  // query, key_value = self.c_attn(hidden_states).split((self.embed_dim, 2 * self.kv_dim), dim=2)
  %query = poot.slice %c_attn_out {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 4, 64>, step = array<i64: 1, 1, 1>} : tensor<2x4x96xf16>
  %kv_new = poot.slice %c_attn_out {start = array<i64: 0, 0, 64>, limit = array<i64: 2, 4, 96>, step = array<i64: 1, 1, 1>} : tensor<2x4x96xf16>
  // key_value = torch.cat((layer_past, key_value), dim=-2)
  %key_value = poot.concat %layer_past, %kv_new {axis = 1 : i64} : tensor<2x4x32xf16>, tensor<2x4x32xf16>
  // key, value = key_value.split((self.head_dim, self.head_dim), dim=-1)
  %key = poot.slice %key_value {start = array<i64: 0, 0, 0>, limit = array<i64: 2, 8, 16>, step = array<i64: 1, 1, 1>} : tensor<2x8x32xf16>
  %value = poot.slice %key_value {start = array<i64: 0, 0, 16>, limit = array<i64: 2, 8, 32>, step = array<i64: 1, 1, 1>} : tensor<2x8x32xf16>
  // key.transpose(-1, -2)
  %key_t = poot.transpose %key {perm = array<i64: 0, 2, 1>} : tensor<2x8x16xf16>
  // GPTBigCodeModel.forward: self.bias[None, key_length - query_length : key_length, :key_length].unsqueeze(2)
  %bias = poot.constant dense<[[true, false, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, false, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, false, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, false, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, false, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, false, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, false, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, false, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, false, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, false, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, false, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, false, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, false, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, false, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, false], [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true]]> : tensor<16x16xi1>
  %sam0 = poot.slice %bias {start = array<i64: 4, 0>, limit = array<i64: 8, 8>, step = array<i64: 1, 1>} : tensor<16x16xi1>
  %sam1 = poot.reshape %sam0 : tensor<4x8xi1> -> tensor<1x4x8xi1>
  %mask = poot.reshape %sam1 : tensor<1x4x8xi1> -> tensor<1x4x1x8xi1>
  // _attn: query.reshape(batch_size, query_length * self.num_heads, self.head_dim)
  %q = poot.reshape %query : tensor<2x4x64xf16> -> tensor<2x16x16xf16>
  // torch.baddbmm(torch.empty(attn_view), query, key, beta=0, alpha=scale_factor).view(attn_shape)
  %qk = poot.matmul %q, %key_t : tensor<2x16x16xf16>, tensor<2x16x8xf16>
  %alpha = poot.constant dense<6.250000e-02> : tensor<f16>
  %aw = poot.mul %qk, %alpha : tensor<2x16x8xf16>, tensor<f16>
  %aw4 = poot.reshape %aw : tensor<2x16x8xf16> -> tensor<2x4x4x8xf16>
  // upcast_masked_softmax: x = x.to(softmax_dtype) * scale
  %xf = poot.convert %aw4 : tensor<2x4x4x8xf16> -> tensor<2x4x4x8xf32>
  %unscale = poot.constant dense<4.000000e+00> : tensor<f32>
  %xs = poot.mul %xf, %unscale : tensor<2x4x4x8xf32>, tensor<f32>
  // x = torch.where(mask, x, mask_value)   (mask_value = finfo(f32).min)
  %mask_value = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %xm = poot.select %mask, %xs, %mask_value : tensor<1x4x1x8xi1>, tensor<2x4x4x8xf32>, tensor<f32>
  // torch.nn.functional.softmax(x, dim=-1).to(input_dtype)
  %mx = poot.reduce_max %xm {axis = 3 : i64, keepdim} : tensor<2x4x4x8xf32>
  %d = poot.sub %xm, %mx : tensor<2x4x4x8xf32>, tensor<2x4x4x1xf32>
  %e = poot.exp %d : tensor<2x4x4x8xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x4x8xf32>
  %p = poot.div %e, %z : tensor<2x4x4x8xf32>, tensor<2x4x4x1xf32>
  %ph = poot.convert %p : tensor<2x4x4x8xf32> -> tensor<2x4x4x8xf16>
  // torch.bmm(attn_weights.view(attn_view), value).view(query_shape)
  %p3 = poot.reshape %ph : tensor<2x4x4x8xf16> -> tensor<2x16x8xf16>
  %o = poot.matmul %p3, %value : tensor<2x16x8xf16>, tensor<2x8x16xf16>
  %out = poot.reshape %o : tensor<2x16x16xf16> -> tensor<2x4x64xf16>
  return %out, %key_value : tensor<2x4x64xf16>, tensor<2x8x32xf16>
}
