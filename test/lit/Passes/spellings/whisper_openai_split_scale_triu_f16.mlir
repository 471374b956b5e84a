// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// OpenAI Whisper (openai/whisper whisper/model.py,
// MultiHeadAttention.qkv_attention, the non-SDPA branch) in the text
// decoder's self-attention on a prompt: scale = (n_state // n_head) ** -0.25
// applied to both sides, qk = (q * scale) @ (k * scale).transpose(-1, -2)
// with q, k viewed [B, L, H, D] and permuted (0, 2, 1, 3) first; qk + the
// registered buffer mask = empty(n_ctx, n_ctx).fill_(-inf).triu_(1) (f32,
// n_ctx = 12 here) sliced [:L, :L], which promotes the f16 scores to f32;
// qk.float(); softmax(dim=-1).to(f16); (w @ v).permute(0, 2, 1, 3)
// .flatten(2). B = 1, L = 5, H = 4, D = 32, f16 (scale 0.4204 in f16).

// CHECK-LABEL: func.func @whisper_openai_split_scale_triu_f16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 1 : i64, scale = 0.176744{{[0-9]*}} : f64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 1, scale 0.176745, causal{{$}}
func.func @whisper_openai_split_scale_triu_f16(%xq: tensor<1x5x128xf16>, %xk: tensor<1x5x128xf16>,
                                              %xv: tensor<1x5x128xf16>) -> tensor<1x5x128xf16> {
  %q4 = poot.reshape %xq : tensor<1x5x128xf16> -> tensor<1x5x4x32xf16>
  %q = poot.transpose %q4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x32xf16>
  %k4 = poot.reshape %xk : tensor<1x5x128xf16> -> tensor<1x5x4x32xf16>
  %k = poot.transpose %k4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x32xf16>
  %v4 = poot.reshape %xv : tensor<1x5x128xf16> -> tensor<1x5x4x32xf16>
  %v = poot.transpose %v4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x5x4x32xf16>
  %sc = poot.constant dense<0.420448214> : tensor<f16>
  %qs = poot.mul %q, %sc : tensor<1x4x5x32xf16>, tensor<f16>
  %ks = poot.mul %k, %sc : tensor<1x4x5x32xf16>, tensor<f16>
  %kt = poot.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x5x32xf16>
  %qk = poot.matmul %qs, %kt : tensor<1x4x5x32xf16>, tensor<1x4x32x5xf16>
  %mask = poot.constant dense<[[0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0xFF800000,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0xFF800000,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0xFF800000],[0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0,0.0]]> : tensor<12x12xf32>
  %ms = poot.slice %mask {start = array<i64: 0, 0>, limit = array<i64: 5, 5>, step = array<i64: 1, 1>} : tensor<12x12xf32>
  %qkf = poot.convert %qk : tensor<1x4x5x5xf16> -> tensor<1x4x5x5xf32>
  %qkm = poot.add %qkf, %ms : tensor<1x4x5x5xf32>, tensor<5x5xf32>
  %m = poot.reduce_max %qkm {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %d = poot.sub %qkm, %m : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %e = poot.exp %d : tensor<1x4x5x5xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x5x5xf32>
  %p = poot.div %e, %z : tensor<1x4x5x5xf32>, tensor<1x4x5x1xf32>
  %w = poot.convert %p : tensor<1x4x5x5xf32> -> tensor<1x4x5x5xf16>
  %wv = poot.matmul %w, %v : tensor<1x4x5x5xf16>, tensor<1x4x5x32xf16>
  %ot = poot.transpose %wv {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x5x32xf16>
  %o = poot.reshape %ot : tensor<1x5x4x32xf16> -> tensor<1x5x128xf16>
  return %o : tensor<1x5x128xf16>
}
