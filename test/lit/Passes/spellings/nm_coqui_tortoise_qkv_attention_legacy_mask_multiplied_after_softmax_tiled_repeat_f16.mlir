// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// Near miss, Coqui TTS TTS/tts/layers/tortoise/arch_utils.py,
// QKVAttentionLegacy.forward with a mask (Tortoise's AttentionBlock), f16:
//   q, k, v = qkv.reshape(bs * n_heads, ch * 3, length).split(ch, dim=1)
//   scale = 1 / math.sqrt(math.sqrt(ch))
//   weight = torch.einsum("bct,bcs->bts", q * scale, k * scale)
//   weight = torch.softmax(weight.float(), dim=-1).type(weight.dtype)
//   mask = mask.repeat(n_heads, 1).unsqueeze(1); weight = weight * mask
//   a = torch.einsum("bts,bcs->bct", weight, v); a.reshape(bs, -1, length)
// The mask multiplies the probabilities after the softmax ("the proper way
// to do this is to mask before the softmax using -inf, but that doesn't
// work properly on CPUs"), and the kept weights are not renormalised, so
// a row's weights no longer sum to 1: this is no softmax attention (and the
// tiled mask.repeat(n_heads, 1) pairs row h * bs + b of the mask with row
// b * n_heads + h of the weights, as the code does). Channels-first
// [N, H * 3 * C, T] layout, bs 2, n_heads 2, ch 16, length 6.
// Must decline.

// CHECK-LABEL: func.func @nm_coqui_tortoise_qkv_attention_legacy_mask_multiplied_after_softmax_tiled_repeat_f16
// CHECK-NOT: poot.attention
// CHECK: poot.exp
// CHECK-NOT: poot.attention
// EXPLAIN: remark: attention declined: the probabilities are not exp(s) / sum(exp(s))
func.func @nm_coqui_tortoise_qkv_attention_legacy_mask_multiplied_after_softmax_tiled_repeat_f16(
    %qkv: tensor<2x96x6xf16>, %mask: tensor<2x6xf16>) -> tensor<2x32x6xf16> {
  // qkv.reshape(bs * n_heads, ch * 3, length).split(ch, dim=1)
  %r = poot.reshape %qkv : tensor<2x96x6xf16> -> tensor<4x48x6xf16>
  %q = poot.slice %r {start = array<i64: 0, 0, 0>, limit = array<i64: 4, 16, 6>, step = array<i64: 1, 1, 1>} : tensor<4x48x6xf16>
  %k = poot.slice %r {start = array<i64: 0, 16, 0>, limit = array<i64: 4, 32, 6>, step = array<i64: 1, 1, 1>} : tensor<4x48x6xf16>
  %v = poot.slice %r {start = array<i64: 0, 32, 0>, limit = array<i64: 4, 48, 6>, step = array<i64: 1, 1, 1>} : tensor<4x48x6xf16>
  // torch.einsum("bct,bcs->bts", q * scale, k * scale), scale = 1 / sqrt(sqrt(16))
  %sc = poot.constant dense<5.000000e-01> : tensor<f16>
  %qs = poot.mul %q, %sc : tensor<4x16x6xf16>, tensor<f16>
  %ks = poot.mul %k, %sc : tensor<4x16x6xf16>, tensor<f16>
  %qt = poot.transpose %qs {perm = array<i64: 0, 2, 1>} : tensor<4x16x6xf16>
  %w = poot.matmul %qt, %ks : tensor<4x6x16xf16>, tensor<4x16x6xf16>
  // torch.softmax(weight.float(), dim=-1).type(weight.dtype)
  %wf = poot.convert %w : tensor<4x6x6xf16> -> tensor<4x6x6xf32>
  %mx = poot.reduce_max %wf {axis = 2 : i64, keepdim} : tensor<4x6x6xf32>
  %d = poot.sub %wf, %mx : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %e = poot.exp %d : tensor<4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x6x6xf32>
  %p = poot.div %e, %z : tensor<4x6x6xf32>, tensor<4x6x1xf32>
  %ph = poot.convert %p : tensor<4x6x6xf32> -> tensor<4x6x6xf16>
  // mask.repeat(n_heads, 1).unsqueeze(1); weight = weight * mask
  %m3 = poot.reshape %mask : tensor<2x6xf16> -> tensor<1x2x6xf16>
  %m3b = poot.broadcast %m3 {shape = array<i64: 2, 2, 6>} : tensor<1x2x6xf16>
  %mr = poot.reshape %m3b : tensor<2x2x6xf16> -> tensor<4x1x6xf16>
  %wm = poot.mul %ph, %mr : tensor<4x6x6xf16>, tensor<4x1x6xf16>
  // torch.einsum("bts,bcs->bct", weight, v)
  %wt = poot.transpose %wm {perm = array<i64: 0, 2, 1>} : tensor<4x6x6xf16>
  %a = poot.matmul %v, %wt : tensor<4x16x6xf16>, tensor<4x6x6xf16>
  // a.reshape(bs, -1, length)
  %out = poot.reshape %a : tensor<4x16x6xf16> -> tensor<2x32x6xf16>
  return %out : tensor<2x32x6xf16>
}
