// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// OpenAI guided-diffusion (guided_diffusion/unet.py, QKVAttentionLegacy
// .forward, the attention of AttentionBlock in the f16 UNet), which many
// diffusion code bases copied. The packed qkv from the 1x1 conv is
// channels first, [N, H * 3 * C, T]; it is viewed [N * H, 3 * C, T] (heads
// folded into the batch, each head's q, k and v channels adjacent) and
// split(ch, dim=1) into q, k, v [N * H, C, T]. scale = 1 / sqrt(sqrt(ch))
// is applied to q and to k ("more stable with f16 than dividing
// afterwards"); weight = einsum("bct,bcs->bts", q * scale, k * scale);
// weight = softmax(weight.float(), dim=-1).type(f16); a =
// einsum("bts,bcs->bct", weight, v), the probabilities on the right of v,
// and a.reshape(N, H * C, T). Strongest form: one fused op, no mask,
// n_rep 1, the split scale folded to 1/4 (ch = 16), q and k read through
// transposes from the channels-first layout. N = 2, H = 2, C = 16, T = 8.

// CHECK-LABEL: func.func @guided_diffusion_qkv_attention_legacy_channels_first_heads_in_batch_split_scale_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 2.500000e-01 : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.25{{$}}
func.func @guided_diffusion_qkv_attention_legacy_channels_first_heads_in_batch_split_scale_f16(
    %qkv: tensor<2x96x8xf16>) -> tensor<2x32x8xf16> {
  // qkv.reshape(bs * n_heads, ch * 3, length).split(ch, dim=1)
  %r = poot.reshape %qkv : tensor<2x96x8xf16> -> tensor<4x48x8xf16>
  %q = poot.slice %r {start = array<i64: 0, 0, 0>, limit = array<i64: 4, 16, 8>, step = array<i64: 1, 1, 1>} : tensor<4x48x8xf16>
  %k = poot.slice %r {start = array<i64: 0, 16, 0>, limit = array<i64: 4, 32, 8>, step = array<i64: 1, 1, 1>} : tensor<4x48x8xf16>
  %v = poot.slice %r {start = array<i64: 0, 32, 0>, limit = array<i64: 4, 48, 8>, step = array<i64: 1, 1, 1>} : tensor<4x48x8xf16>
  // scale = 1 / sqrt(sqrt(ch)) on q and on k
  %scale = poot.constant dense<5.000000e-01> : tensor<f16>
  %qs = poot.mul %q, %scale : tensor<4x16x8xf16>, tensor<f16>
  %ks = poot.mul %k, %scale : tensor<4x16x8xf16>, tensor<f16>
  // einsum("bct,bcs->bts")
  %qt = poot.transpose %qs {perm = array<i64: 0, 2, 1>} : tensor<4x16x8xf16>
  %w = poot.matmul %qt, %ks : tensor<4x8x16xf16>, tensor<4x16x8xf16>
  // softmax(weight.float(), dim=-1).type(weight.dtype)
  %wf = poot.convert %w : tensor<4x8x8xf16> -> tensor<4x8x8xf32>
  %m = poot.reduce_max %wf {axis = 2 : i64, keepdim} : tensor<4x8x8xf32>
  %d = poot.sub %wf, %m : tensor<4x8x8xf32>, tensor<4x8x1xf32>
  %e = poot.exp %d : tensor<4x8x8xf32>
  %z = poot.reduce_sum %e {axis = 2 : i64, keepdim} : tensor<4x8x8xf32>
  %p = poot.div %e, %z : tensor<4x8x8xf32>, tensor<4x8x1xf32>
  %ph = poot.convert %p : tensor<4x8x8xf32> -> tensor<4x8x8xf16>
  // einsum("bts,bcs->bct", weight, v)
  %pt = poot.transpose %ph {perm = array<i64: 0, 2, 1>} : tensor<4x8x8xf16>
  %a = poot.matmul %v, %pt : tensor<4x16x8xf16>, tensor<4x8x8xf16>
  // a.reshape(bs, -1, length)
  %out = poot.reshape %a : tensor<4x16x8xf16> -> tensor<2x32x8xf16>
  return %out : tensor<2x32x8xf16>
}
