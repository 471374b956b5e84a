// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Hugging Face transformers, Zamba (models/zamba/modeling_zamba.py,
// ZambaAttentionDecoderLayer.forward -> ZambaAttention.forward ->
// eager_attention_forward, 4.48+), f32 prefill of a padded batch.
// The shared attention block reads the concatenation of the Mamba
// stream and the original embeddings: torch.concatenate([hidden_states,
// original_hidden_states], dim=-1) (attention_hidden_size = 2 * hidden),
// then input_layernorm (ZambaRMSNorm: f32 variance = pow(2).mean(-1),
// x * rsqrt(var + eps), weight * x). head_dim = attention_head_dim =
// 2 * hidden / heads and scaling = (head_dim / 2) ** -0.5 (the comment in
// the class: sqrt(head_dim / 2) instead of sqrt(head_dim)). q/k/v_proj
// (no bias), view(*input_shape, -1, head_dim).transpose(1, 2); no rotary;
// eager: repeat_kv (n_rep 1 here: num_key_value_heads defaults to the
// head count), matmul(q, k^T) * scaling + causal_mask[:, :, :, :kv_len],
// softmax(dim=-1, dtype=float32), matmul(v), transpose, reshape. The mask
// is _prepare_4d_causal_attention_mask_with_cache_position with a 2D
// padding mask: full((L, L), finfo.min).triu(1) *= arange(L) >
// cache_position.reshape(-1, 1); expand to [B, 1, L, L]; padding_mask =
// (causal_mask + attention_mask[:, None, None, :]) == 0; masked_fill(
// padding_mask, finfo.min). B = 2, L = 5, hidden 32 (64 after the
// concat), 4 heads of 16 (scale 1/sqrt(8)), attention_mask i64 in {0, 1}.
//
// Strongest form: the padding mask is data (a left-padded row may see no
// key at all, where the finite fill gives a uniform row), so one fused
// op with the combined [2, 1, 5, 5] tensor mask, scale 8^-1/2, n_rep 1.

// CHECK-LABEL: func.func @hf_zamba_concat_original_hidden_rmsnorm_half_head_dim_scale_padding_cache_position_mask_f32
// CHECK-NOT: poot.exp
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} mask(%{{.+}} : tensor<2x1x5x5xf32>) {n_rep = 1 : i64, scale = 0.35355{{[0-9]*}} : f64} : tensor<2x4x5x16xf32>, tensor<2x4x5x16xf32>, tensor<2x4x5x16xf32> -> tensor<2x4x5x16xf32>
// CHECK-NOT: poot.exp
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.353553, tensor mask
func.func @hf_zamba_concat_original_hidden_rmsnorm_half_head_dim_scale_padding_cache_position_mask_f32(
    %hidden: tensor<2x5x32xf32>, %original_hidden: tensor<2x5x32xf32>, %ln_w: tensor<64xf32>,
    %wq_t: tensor<64x64xf32>, %wk_t: tensor<64x64xf32>, %wv_t: tensor<64x64xf32>,
    %attention_mask: tensor<2x5xi64> {poot.range = array<i64: 0, 2>}) -> tensor<2x5x64xf32> {
  // torch.concatenate([hidden_states, original_hidden_states], dim=-1)
  %h = poot.concat %hidden, %original_hidden {axis = 2 : i64} : tensor<2x5x32xf32>, tensor<2x5x32xf32>
  // input_layernorm (ZambaRMSNorm)
  %sq = poot.mul %h, %h : tensor<2x5x64xf32>, tensor<2x5x64xf32>
  %ss = poot.reduce_sum %sq {axis = 2 : i64, keepdim} : tensor<2x5x64xf32>
  %n = poot.constant dense<64.0> : tensor<f32>
  %var = poot.div %ss, %n : tensor<2x5x1xf32>, tensor<f32>
  %eps = poot.constant dense<1.0e-05> : tensor<f32>
  %ve = poot.add %var, %eps : tensor<2x5x1xf32>, tensor<f32>
  %rs = poot.rsqrt %ve : tensor<2x5x1xf32>
  %hn0 = poot.mul %h, %rs : tensor<2x5x64xf32>, tensor<2x5x1xf32>
  %hn = poot.mul %ln_w, %hn0 : tensor<64xf32>, tensor<2x5x64xf32>
  // q_proj / k_proj / v_proj, view(hidden_shape).transpose(1, 2)
  %q0 = poot.matmul %hn, %wq_t : tensor<2x5x64xf32>, tensor<64x64xf32>
  %k0 = poot.matmul %hn, %wk_t : tensor<2x5x64xf32>, tensor<64x64xf32>
  %v0 = poot.matmul %hn, %wv_t : tensor<2x5x64xf32>, tensor<64x64xf32>
  %q4 = poot.reshape %q0 : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  %k4 = poot.reshape %k0 : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  %v4 = poot.reshape %v0 : tensor<2x5x64xf32> -> tensor<2x5x4x16xf32>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x5x4x16xf32>
  // the 4D mask: full(min).triu(1) *= arange > cache_position; expand; padding
  %ri = poot.iota {dim = 0 : i64} : tensor<5x5xi64>
  %ci = poot.iota {dim = 1 : i64} : tensor<5x5xi64>
  %up = poot.compare gt, %ci, %ri : tensor<5x5xi64>, tensor<5x5xi64>
  %min = poot.constant dense<-3.40282347E+38> : tensor<f32>
  %zf = poot.constant dense<0.0> : tensor<f32>
  %triu = poot.select %up, %min, %zf : tensor<5x5xi1>, tensor<f32>, tensor<f32>
  %ar = poot.iota {dim = 1 : i64} : tensor<1x5xi64>
  %cp = poot.iota {dim = 0 : i64} : tensor<5x1xi64>
  %after = poot.compare gt, %ar, %cp : tensor<1x5xi64>, tensor<5x1xi64>
  %afterf = poot.convert %after : tensor<5x5xi1> -> tensor<5x5xf32>
  %cm = poot.mul %triu, %afterf : tensor<5x5xf32>, tensor<5x5xf32>
  %cm4 = poot.reshape %cm : tensor<5x5xf32> -> tensor<1x1x5x5xf32>
  %cmb = poot.broadcast %cm4 {shape = array<i64: 2, 1, 5, 5>} : tensor<1x1x5x5xf32>
  %am4 = poot.reshape %attention_mask : tensor<2x5xi64> -> tensor<2x1x1x5xi64>
  %amf = poot.convert %am4 : tensor<2x1x1x5xi64> -> tensor<2x1x1x5xf32>
  %pm0 = poot.add %cmb, %amf : tensor<2x1x5x5xf32>, tensor<2x1x1x5xf32>
  %pmask = poot.compare eq, %pm0, %zf : tensor<2x1x5x5xf32>, tensor<f32>
  %mask = poot.select %pmask, %min, %cmb : tensor<2x1x5x5xi1>, tensor<f32>, tensor<2x1x5x5xf32>
  // eager_attention_forward
  %kt = poot.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x5x16xf32>
  %w0 = poot.matmul %q, %kt : tensor<2x4x5x16xf32>, tensor<2x4x16x5xf32>
  %scaling = poot.constant dense<0.353553385> : tensor<f32>
  %w = poot.mul %w0, %scaling : tensor<2x4x5x5xf32>, tensor<f32>
  %wm = poot.add %w, %mask : tensor<2x4x5x5xf32>, tensor<2x1x5x5xf32>
  %mx = poot.reduce_max %wm {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %d = poot.sub %wm, %mx : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %e = poot.exp %d : tensor<2x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<2x4x5x5xf32>
  %p = poot.div %e, %z : tensor<2x4x5x5xf32>, tensor<2x4x5x1xf32>
  %o = poot.matmul %p, %v : tensor<2x4x5x5xf32>, tensor<2x4x5x16xf32>
  %ot = poot.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x5x16xf32>
  %out = poot.reshape %ot : tensor<2x5x4x16xf32> -> tensor<2x5x64xf32>
  return %out : tensor<2x5x64xf32>
}
