// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Near miss, Google's prompt-to-prompt (ptp_utils.py,
// register_attention_control's patched CrossAttention.forward, with the
// notebook's AttentionReweight controller, LOW_RESOURCE = True), a UNet
// cross-attention layer while two prompts (source and edit) are denoised
// together, f32. reshape_heads_to_batch_dim views q, k, v [B, n, h * d] as
// [B * h, n, d]; sim = einsum("b i d, b j d -> b i j", q, k) * scale;
// attn = sim.softmax(dim=-1); attn = controller(attn, is_cross=True, ..):
// AttentionControlEdit.forward reshapes attn to [B, h, i, j], takes
// attn_base = attn[0] and attn_replace = attn[1:], and writes attn[1:] =
// (attn_base[None] * equalizer[:, None, None, :]) * alpha_words +
// (1 - alpha_words) * attn_replace (AttentionReweight.replace_cross_
// attention), reshaped back to [B * h, i, j]; out = einsum("b i j, b j d ->
// b i d", attn, v). (AttentionStore also keeps a copy of attn for the
// attention maps; that side read is left out here.) The edited prompt's
// weights are the source prompt's probabilities times a per-token
// equalizer, mixed with its own, and never renormalised: its rows do not
// sum to 1 and are no softmax of its own scores, so the product is no
// attention and the whole chain must stay unfused. B = 2, h = 2, i = 16
// image tokens, j = 8 text tokens, d = 16.

// The product reads a concat of slices of the softmax, reweighted and
// mixed: a summed exp under a few ops, so it is explained when it declines.
// CHECK-LABEL: func.func @nm_prompt_to_prompt_attention_reweight_equalizer_after_softmax_f32
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the probabilities are not exp(s) / sum(exp(s)){{$}}
func.func @nm_prompt_to_prompt_attention_reweight_equalizer_after_softmax_f32(
    %q_lin: tensor<2x16x32xf32>, %k_lin: tensor<2x8x32xf32>, %v_lin: tensor<2x8x32xf32>,
    %equalizer: tensor<1x8xf32>, %alpha_words: tensor<1x1x1x8xf32>) -> tensor<2x16x32xf32> {
  // reshape_heads_to_batch_dim
  %q4 = poot.reshape %q_lin : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %qp = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x16x2x16xf32>
  %q = poot.reshape %qp : tensor<2x2x16x16xf32> -> tensor<4x16x16xf32>
  %k4 = poot.reshape %k_lin : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %kp = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %k = poot.reshape %kp : tensor<2x2x8x16xf32> -> tensor<4x8x16xf32>
  %v4 = poot.reshape %v_lin : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %vp = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x8x2x16xf32>
  %v = poot.reshape %vp : tensor<2x2x8x16xf32> -> tensor<4x8x16xf32>
  // sim = einsum("b i d, b j d -> b i j", q, k) * self.scale
  %kt = poot.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<4x8x16xf32>
  %s = poot.matmul %q, %kt : tensor<4x16x16xf32>, tensor<4x16x8xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %sim = poot.mul %s, %scale : tensor<4x16x8xf32>, tensor<f32>
  // attn = sim.softmax(dim=-1)
  %m = poot.reduce_max %sim {axis = 2 : i64, keepdim} : tensor<4x16x8xf32>
  %d = poot.sub %sim, %m : tensor<4x16x8xf32>, tensor<4x16x1xf32>
  %e = poot.exp %d : tensor<4x16x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x16x8xf32>
  %attn = poot.div %e, %z : tensor<4x16x8xf32>, tensor<4x16x1xf32>
  // AttentionControlEdit.forward with AttentionReweight
  %a4 = poot.reshape %attn : tensor<4x16x8xf32> -> tensor<2x2x16x8xf32>
  %base = poot.slice %a4 {start = array<i64: 0, 0, 0, 0>, limit = array<i64: 1, 2, 16, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x16x8xf32>
  %repl = poot.slice %a4 {start = array<i64: 1, 0, 0, 0>, limit = array<i64: 2, 2, 16, 8>, step = array<i64: 1, 1, 1, 1>} : tensor<2x2x16x8xf32>
  %eq4 = poot.reshape %equalizer : tensor<1x8xf32> -> tensor<1x1x1x8xf32>
  %rw = poot.mul %base, %eq4 : tensor<1x2x16x8xf32>, tensor<1x1x1x8xf32>
  %rwa = poot.mul %rw, %alpha_words : tensor<1x2x16x8xf32>, tensor<1x1x1x8xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %oma = poot.sub %one, %alpha_words : tensor<f32>, tensor<1x1x1x8xf32>
  %keep = poot.mul %oma, %repl : tensor<1x1x1x8xf32>, tensor<1x2x16x8xf32>
  %new = poot.add %rwa, %keep : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
  %edited = poot.concat %base, %new {axis = 0 : i64} : tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>
  %attn2 = poot.reshape %edited : tensor<2x2x16x8xf32> -> tensor<4x16x8xf32>
  // out = einsum("b i j, b j d -> b i d", attn, v); reshape_batch_dim_to_heads
  %o = poot.matmul %attn2, %v : tensor<4x16x8xf32>, tensor<4x8x16xf32>
  %o4 = poot.reshape %o : tensor<4x16x16xf32> -> tensor<2x2x16x16xf32>
  %ot = poot.transpose %o4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x16x16xf32>
  %out = poot.reshape %ot : tensor<2x16x2x16xf32> -> tensor<2x16x32xf32>
  return %out : tensor<2x16x32xf32>
}
