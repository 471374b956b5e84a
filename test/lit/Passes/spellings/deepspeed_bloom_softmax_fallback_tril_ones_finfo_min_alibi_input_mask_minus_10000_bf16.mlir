// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet --set=input_mask=1,1,1,1,0,0
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet --set=input_mask=1,1,1,1,0,0 %}

// microsoft/DeepSpeed (0.14), deepspeed/ops/transformer/inference/
// ds_attention.py, BloomSelfAttention.compute_attention, with SoftmaxOp
// (op_binding/softmax.py) on its torch path softmax_fallback
// (DS_KI_FALLBACK=True, no inference kernel), bf16, prefill, no
// layer_past, mp_size 1 (head_offset 0), triangular_masking True,
// invert_mask True. Inputs: qkv_out [B, L, 3E], alibi [B * H, 1, L] as the
// model passes it (BLOOM's build_alibi_tensor, computed outside the layer),
// input_mask [B, L] 0/1 (1 = keep). mixed_x_layer.view(B, L, H, 3 * D);
// _split_tensor_along_last_dim into q, k, v; q.transpose(1, 2).reshape(B *
// H, L, D); k likewise then .transpose(-1, -2); v likewise; matmul_result =
// torch.matmul(q, k); view(B, H, L, L); invert: 1 - input_mask; attn_mask =
// input_mask.to(bf16) * minus_inf (-10000.0); softmax_fallback: tri =
// ~torch.tril(torch.ones(attn_scores.size())).to(bool); masked_fill(
// attn_scores * layer_scale, tri, finfo(bf16).min) with layer_scale = 1 /
// (norm_factor * norm_factor), norm_factor = sqrt(sqrt(D)); attn_scores +=
// alibi[0:H]; attn_scores += attn_mask[:, None, None, :];
// softmax(dim=-1, f32).to(bf16); view(B * H, L, L); bmm with v; view(B, H,
// L, D); _transpose_for_context: permute(0, 2, 1, 3).view(B, L, E).
// B = 1, H = 4, L = 6, D = 16, E = 64.
//
// Strongest form: the diagonal key always keeps a finite score (the
// padding term is a finite -10000), so the finfo.min fill is exactly
// causal; alibi is an arbitrary input here (its slopes are not visible), so
// it and the -10000 padding term stay an additive tensor mask, per head and
// key [1, 4, 1, 6] (at most [1, 4, 6, 6] if the op wants every query row);
// n_rep 1, scale 1/4; no zero_empty_rows (no row is empty):
//   poot.attention q, k, v mask(... : tensor<1x4x6x6xbf16>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// Not the strongest form yet; the strongest, from the source, was:
//   poot.attention q, k, v mask(... : tensor<1x4x6x6xbf16>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// Today (sound, checked against the oracle): declined, the finfo.min fill is
// taken as finite with rows that may have no visible key (the -10000
// padding term is not seen to leave the diagonal finite).
// The check RUN lines bind input_mask = 1,1,1,1,0,0 (right padding, every
// row keeps key 0): a row whose visible keys are all padding holds scores
// near -10000 where bf16 has a spacing of 64, which the graph's own bf16
// arithmetic cannot match to an f64 reference (not a fusion effect).
// CHECK-LABEL: func.func @deepspeed_bloom_softmax_fallback_tril_ones_finfo_min_alibi_input_mask_minus_10000_bf16
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// EXPLAIN: remark: attention declined: finite mask fill -3.38953e+38 with rows that may have no visible key{{$}}
func.func @deepspeed_bloom_softmax_fallback_tril_ones_finfo_min_alibi_input_mask_minus_10000_bf16(
    %qkv_out: tensor<1x6x192xbf16>, %alibi: tensor<4x1x6xbf16>,
    %input_mask: tensor<1x6xi64> {poot.name = "input_mask", poot.range = array<i64: 0, 2>}) -> tensor<1x6x64xbf16> {
  // mixed_x_layer.view(*new_tensor_shape): (B, L, H, 3 * head_dim)
  %mixed = poot.reshape %qkv_out : tensor<1x6x192xbf16> -> tensor<1x6x4x48xbf16>
  // query_layer, key_layer, value_layer = self._split_tensor_along_last_dim(mixed_x_layer, 3)
  %query_layer = poot.slice %mixed {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 6, 4, 16>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x4x48xbf16>
  %key_layer = poot.slice %mixed {start = array<i64: 0, 0, 0, 16>, limit = array<i64: 1, 6, 4, 32>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x4x48xbf16>
  %value_layer = poot.slice %mixed {start = array<i64: 0, 0, 0, 32>, limit = array<i64: 1, 6, 4, 48>, step = array<i64: 1, 1, 1, 1>} : tensor<1x6x4x48xbf16>
  // query_layer.transpose(1, 2).reshape(output_size[0] * output_size[1], output_size[2], -1)
  %qt = poot.transpose %query_layer {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xbf16>
  %q3 = poot.reshape %qt : tensor<1x4x6x16xbf16> -> tensor<4x6x16xbf16>
  // key_layer.transpose(1, 2).reshape(B * H, k_length, -1).transpose(-1, -2)
  %kt0 = poot.transpose %key_layer {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xbf16>
  %k3 = poot.reshape %kt0 : tensor<1x4x6x16xbf16> -> tensor<4x6x16xbf16>
  %k3t = poot.transpose %k3 {perm = array<i64: 0, 2, 1>} : tensor<4x6x16xbf16>
  // value_layer.transpose(1, 2).reshape(B * H, k_length, -1)
  %vt0 = poot.transpose %value_layer {perm = array<i64: 0, 2, 1, 3>} : tensor<1x6x4x16xbf16>
  %v3 = poot.reshape %vt0 : tensor<1x4x6x16xbf16> -> tensor<4x6x16xbf16>
  // matmul_result = torch.matmul(query_layer, key_layer); attention_scores = matmul_result.view(B, H, q, -1)
  %mm = poot.matmul %q3, %k3t : tensor<4x6x16xbf16>, tensor<4x16x6xbf16>
  %scores = poot.reshape %mm : tensor<4x6x6xbf16> -> tensor<1x4x6x6xbf16>
  // if self.config.invert_mask: input_mask = 1 - input_mask; attn_mask = input_mask.to(target_dtype) * minus_inf
  %one_i = poot.constant dense<1> : tensor<i64>
  %inv = poot.sub %one_i, %input_mask : tensor<i64>, tensor<1x6xi64>
  %invf = poot.convert %inv : tensor<1x6xi64> -> tensor<1x6xbf16>
  %minus_inf = poot.constant dense<-10000.0> : tensor<bf16>
  %attn_mask = poot.mul %invf, %minus_inf : tensor<1x6xbf16>, tensor<bf16>
  // softmax_fallback: tri = ~torch.tril(torch.ones(attn_scores.size())).to(bool)
  %ones = poot.constant dense<1.0> : tensor<1x4x6x6xf32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %row = poot.iota {dim = 2 : i64} : tensor<1x4x6x6xi64>
  %col = poot.iota {dim = 3 : i64} : tensor<1x4x6x6xi64>
  %lower = poot.compare le, %col, %row : tensor<1x4x6x6xi64>, tensor<1x4x6x6xi64>
  %tril = poot.select %lower, %ones, %zf : tensor<1x4x6x6xi1>, tensor<1x4x6x6xf32>, tensor<f32>
  %trilb = poot.convert %tril : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xi1>
  %tri = poot.not %trilb : tensor<1x4x6x6xi1>
  // attn_scores = torch.masked_fill(attn_scores * layer_scale, tri, torch.finfo(input_dtype).min)
  %layer_scale = poot.constant dense<0.25> : tensor<bf16>
  %ss = poot.mul %scores, %layer_scale : tensor<1x4x6x6xbf16>, tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %sm = poot.select %tri, %min, %ss : tensor<1x4x6x6xi1>, tensor<bf16>, tensor<1x4x6x6xbf16>
  // alibi = alibi[head_offset:head_offset + self.num_attention_heads_per_partition]; attn_scores += alibi
  %al = poot.slice %alibi {start = array<i64: 0, 0, 0>, limit = array<i64: 4, 1, 6>, step = array<i64: 1, 1, 1>} : tensor<4x1x6xbf16>
  %sa = poot.add %sm, %al : tensor<1x4x6x6xbf16>, tensor<4x1x6xbf16>
  // attn_mask = attn_mask[:, None, None, :]; attn_scores += attn_mask
  %am4 = poot.reshape %attn_mask : tensor<1x6xbf16> -> tensor<1x1x1x6xbf16>
  %sp = poot.add %sa, %am4 : tensor<1x4x6x6xbf16>, tensor<1x1x1x6xbf16>
  // F.softmax(attn_scores, dim=-1, dtype=torch.float32).to(input_dtype)
  %sf = poot.convert %sp : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %mx = poot.reduce_max %sf {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %sf, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %ph = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  // attention_probs.view(*matmul_result.shape); context_layer = torch.bmm(attention_probs_reshaped, value_layer)
  %p3 = poot.reshape %ph : tensor<1x4x6x6xbf16> -> tensor<4x6x6xbf16>
  %ctx = poot.matmul %p3, %v3 : tensor<4x6x6xbf16>, tensor<4x6x16xbf16>
  // context_layer.view(B, H, q, D); _transpose_for_context: permute(0, 2, 1, 3).contiguous().view(B, L, E)
  %c4 = poot.reshape %ctx : tensor<4x6x16xbf16> -> tensor<1x4x6x16xbf16>
  %ct = poot.transpose %c4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x6x16xbf16>
  %out = poot.reshape %ct : tensor<1x6x4x16xbf16> -> tensor<1x6x64xbf16>
  return %out : tensor<1x6x64xbf16>
}
