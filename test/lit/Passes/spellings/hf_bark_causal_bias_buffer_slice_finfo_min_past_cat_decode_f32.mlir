// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// huggingface/transformers v4.46.0, src/transformers/models/bark/
// modeling_bark.py, BarkSelfAttention.forward and ._attn (eager, causal:
// the semantic / coarse models), f32, eval, attention_mask None, a decode
// step of 2 new tokens against a cache of 5. The registered buffer
// bias = torch.tril(torch.ones((block_size, block_size), dtype=bool))
// .view(1, 1, block_size, block_size) (block_size 16 here, 1024 in the
// checkpoints) is spelled as its iota comparison. forward:
// query, key, value = self.att_proj(hidden_states).split(embed_dim, dim=2)
// (att_proj's output is the input); _split_heads: view(size()[:-1] +
// (H, D)).permute(0, 2, 1, 3); key = torch.cat((past_key, key), dim=-2),
// value likewise. _attn: attn_weights = torch.matmul(query,
// key.transpose(-1, -2)); attn_weights * (1.0 / math.sqrt(head_dim));
// query_length, key_length = 2, 7; attn_weights.masked_fill(self.bias[:,
// :, key_length - query_length : key_length, :key_length] == 0,
// torch.finfo(f32).min) (bool == 0 promotes the bool to long); softmax(
// dim=-1); .to(value.dtype); matmul with value; _merge_heads:
// transpose(1, 2).contiguous().view(B, T, H * D). B = 1, H = 4, D = 16.
//
// Strongest form: the sliced tril hides t > 5 + i, a band: causal at the
// past's offset 5 (every row keeps its keys 0..5 + i, so the finite fill
// never decides a row); n_rep 1, scale 1/4:
//   poot.attention q, k, v pos(5 : tensor<i64>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
//     : tensor<1x4x2x16xf32>, tensor<1x4x7x16xf32>, tensor<1x4x7x16xf32> -> tensor<1x4x2x16xf32>
// Reached (checked against the oracle):
// CHECK-LABEL: func.func @hf_bark_causal_bias_buffer_slice_finfo_min_past_cat_decode_f32
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} pos(%{{.+}} : tensor<i64>) {causal, n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25, causal at offset 5
func.func @hf_bark_causal_bias_buffer_slice_finfo_min_past_cat_decode_f32(
    %att_proj_out: tensor<1x2x192xf32>,
    %past_key: tensor<1x4x5x16xf32>, %past_value: tensor<1x4x5x16xf32>) -> tensor<1x2x64xf32> {
  // self.register_buffer("bias", torch.tril(torch.ones((block_size, block_size), dtype=bool)).view(1, 1, block_size, block_size))
  %row = poot.iota {dim = 0 : i64} : tensor<16x16xi64>
  %col = poot.iota {dim = 1 : i64} : tensor<16x16xi64>
  %tril = poot.compare le, %col, %row : tensor<16x16xi64>, tensor<16x16xi64>
  %bias = poot.reshape %tril : tensor<16x16xi1> -> tensor<1x1x16x16xi1>
  // query, key, value = self.att_proj(hidden_states).split(self.embed_dim, dim=2)
  %qp = poot.slice %att_proj_out {start = array<i64: 0, 0, 0>, limit = array<i64: 1, 2, 64>, step = array<i64: 1, 1, 1>} : tensor<1x2x192xf32>
  %kp = poot.slice %att_proj_out {start = array<i64: 0, 0, 64>, limit = array<i64: 1, 2, 128>, step = array<i64: 1, 1, 1>} : tensor<1x2x192xf32>
  %vp = poot.slice %att_proj_out {start = array<i64: 0, 0, 128>, limit = array<i64: 1, 2, 192>, step = array<i64: 1, 1, 1>} : tensor<1x2x192xf32>
  // _split_heads: tensor.view(new_shape).permute(0, 2, 1, 3)
  %q4 = poot.reshape %qp : tensor<1x2x64xf32> -> tensor<1x2x4x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x16xf32>
  %k4 = poot.reshape %kp : tensor<1x2x64xf32> -> tensor<1x2x4x16xf32>
  %kn = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x16xf32>
  %v4 = poot.reshape %vp : tensor<1x2x64xf32> -> tensor<1x2x4x16xf32>
  %vn = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x4x16xf32>
  // key = torch.cat((past_key, key), dim=-2); value = torch.cat((past_value, value), dim=-2)
  %k = poot.concat %past_key, %kn {axis = 2 : i64} : tensor<1x4x5x16xf32>, tensor<1x4x2x16xf32>
  %v = poot.concat %past_value, %vn {axis = 2 : i64} : tensor<1x4x5x16xf32>, tensor<1x4x2x16xf32>
  // _attn: attn_weights = torch.matmul(query, key.transpose(-1, -2))
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x7x16xf32>
  %w0 = poot.matmul %q, %kt : tensor<1x4x2x16xf32>, tensor<1x4x16x7xf32>
  // attn_weights = attn_weights * (1.0 / math.sqrt(self.head_dim))
  %sc = poot.constant dense<2.500000e-01> : tensor<f32>
  %w1 = poot.mul %w0, %sc : tensor<1x4x2x7xf32>, tensor<f32>
  // self.bias[:, :, key_length - query_length : key_length, :key_length] == 0
  %bs = poot.slice %bias {start = array<i64: 0, 0, 5, 0>, limit = array<i64: 1, 1, 7, 7>, step = array<i64: 1, 1, 1, 1>} : tensor<1x1x16x16xi1>
  %bl = poot.convert %bs : tensor<1x1x2x7xi1> -> tensor<1x1x2x7xi64>
  %z = poot.constant dense<0> : tensor<i64>
  %hide = poot.compare eq, %bl, %z : tensor<1x1x2x7xi64>, tensor<i64>
  // attn_weights.masked_fill(..., torch.finfo(attn_weights.dtype).min)
  %fmin = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %w2 = poot.select %hide, %fmin, %w1 : tensor<1x1x2x7xi1>, tensor<f32>, tensor<1x4x2x7xf32>
  // attn_weights = nn.functional.softmax(attn_weights, dim=-1); .to(value.dtype)
  %mx = poot.reduce_max %w2 {axis = 3 : i64, keepdim} : tensor<1x4x2x7xf32>
  %d = poot.sub %w2, %mx : tensor<1x4x2x7xf32>, tensor<1x4x2x1xf32>
  %e = poot.exp %d : tensor<1x4x2x7xf32>
  %zs = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x2x7xf32>
  %p = poot.div %e, %zs : tensor<1x4x2x7xf32>, tensor<1x4x2x1xf32>
  // attn_output = torch.matmul(attn_weights, value)
  %o = poot.matmul %p, %v : tensor<1x4x2x7xf32>, tensor<1x4x7x16xf32>
  // _merge_heads: tensor.transpose(1, 2).contiguous().view(size()[:-2] + (num_heads * attn_head_size,))
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x2x16xf32>
  %out = poot.reshape %ot : tensor<1x2x4x16xf32> -> tensor<1x2x64xf32>
  return %out : tensor<1x2x64xf32>
}
