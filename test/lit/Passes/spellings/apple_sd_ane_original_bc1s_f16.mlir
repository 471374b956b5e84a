// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// Apple ml-stable-diffusion (python_coreml_stable_diffusion/attention.py,
// `original`, the ANE-oriented layout the Core ML UNet uses): q, k, v are
// [B, C, 1, S] (channels first); mh_q = q.view(bs, heads, dim_head, -1)
// (likewise k, v); attn_weights = einsum("bhcq,bhck->bhqk", mh_q, mh_k),
// .mul_(dim_head ** -0.5), softmax(dim=3); attn = einsum("bhqk,bhck->bhcq",
// w, mh_v), i.e. v [b, h, c, k] times w^T, leaving the output channels
// first; .view(bs, heads * dim_head, 1, -1). Cross-attention to 10 text
// tokens, no mask, S = 8 queries, heads 4, dim_head 32, f16 throughout.

// Strongest form: P . V written as v . p^T (the output laid out [b, h, c, q])
// is taken as p . v^T transposed into that layout, so the key-major softmax
// and its product relabel to the scores' own layout.
// CHECK-LABEL: func.func @apple_sd_ane_original_bc1s_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {n_rep = 1 : i64, scale = 0.1767578125 : f64} : tensor<1x4x8x32xf16>, tensor<1x4x10x32xf16>, tensor<1x4x10x32xf16> -> tensor<1x4x8x32xf16>
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176758{{$}}
func.func @apple_sd_ane_original_bc1s_f16(%q: tensor<1x128x1x8xf16>, %k: tensor<1x128x1x10xf16>,
                                          %v: tensor<1x128x1x10xf16>) -> tensor<1x128x1x8xf16> {
  %mq = poot.reshape %q : tensor<1x128x1x8xf16> -> tensor<1x4x32x8xf16>
  %mk = poot.reshape %k : tensor<1x128x1x10xf16> -> tensor<1x4x32x10xf16>
  %mv = poot.reshape %v : tensor<1x128x1x10xf16> -> tensor<1x4x32x10xf16>
  %qt = poot.transpose %mq {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x32x8xf16>
  %w0 = poot.matmul %qt, %mk : tensor<1x4x8x32xf16>, tensor<1x4x32x10xf16>
  %c = poot.constant dense<0.176776695> : tensor<f16>
  %w = poot.mul %w0, %c : tensor<1x4x8x10xf16>, tensor<f16>
  %m = poot.reduce_max %w {axis = 3 : i64, keepdim} : tensor<1x4x8x10xf16>
  %d = poot.sub %w, %m : tensor<1x4x8x10xf16>, tensor<1x4x8x1xf16>
  %e = poot.exp %d : tensor<1x4x8x10xf16>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x8x10xf16>
  %p = poot.div %e, %z : tensor<1x4x8x10xf16>, tensor<1x4x8x1xf16>
  %pt = poot.transpose %p {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x8x10xf16>
  %a = poot.matmul %mv, %pt : tensor<1x4x32x10xf16>, tensor<1x4x10x8xf16>
  %o = poot.reshape %a : tensor<1x4x32x8xf16> -> tensor<1x128x1x8xf16>
  return %o : tensor<1x128x1x8xf16>
}
