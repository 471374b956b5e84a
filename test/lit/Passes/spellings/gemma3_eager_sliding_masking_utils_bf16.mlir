// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.53 Gemma3Attention (a sliding layer) through
// eager_attention_forward: scaling = query_pre_attn_scalar ** -0.5 (144, with
// head_dim 96), repeat_kv by reshape/expand/reshape; the mask is
// masking_utils.eager_mask over sliding_window_causal_mask_function,
// and_masks(kv_idx > q_idx - sliding_window, kv_idx <= q_idx) with q_idx the
// traced cache_position (a constant arange) and kv_idx arange(S), then
// torch.where(mask, 0, finfo(bf16).min); softmax in f32 cast back to bf16.
// GQA 4/2, L = 6, sliding_window = 4, no softcap (Gemma3 drops it).

// CHECK-LABEL: func.func @gemma3_eager_sliding_masking_utils_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 2 : i64, scale = 0.083{{[0-9]*}} : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.083{{[0-9]*}}, causal, window 4{{$}}
func.func @gemma3_eager_sliding_masking_utils_bf16(%q: tensor<1x4x6x96xbf16>, %k: tensor<1x2x6x96xbf16>,
                                                   %v: tensor<1x2x6x96xbf16>) -> tensor<1x4x6x96xbf16> {
  %cp = poot.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>
  %qi = poot.reshape %cp : tensor<6xi64> -> tensor<6x1xi64>
  %kv = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %ki = poot.reshape %kv : tensor<6xi64> -> tensor<1x6xi64>
  %w = poot.constant dense<4> : tensor<i64>
  %lo = poot.sub %qi, %w : tensor<6x1xi64>, tensor<i64>
  %sl = poot.compare gt, %ki, %lo : tensor<1x6xi64>, tensor<6x1xi64>
  %ca = poot.compare le, %ki, %qi : tensor<1x6xi64>, tensor<6x1xi64>
  %both = poot.and %sl, %ca : tensor<6x6xi1>, tensor<6x6xi1>
  %m4 = poot.reshape %both : tensor<6x6xi1> -> tensor<1x1x6x6xi1>
  %zero = poot.constant dense<0.0> : tensor<bf16>
  %min = poot.constant dense<-3.38953139E+38> : tensor<bf16>
  %mask = poot.select %m4, %zero, %min : tensor<1x1x6x6xi1>, tensor<bf16>, tensor<bf16>
  %k5 = poot.reshape %k : tensor<1x2x6x96xbf16> -> tensor<1x2x1x6x96xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 2, 6, 96>} : tensor<1x2x1x6x96xbf16>
  %kr = poot.reshape %kb : tensor<1x2x2x6x96xbf16> -> tensor<1x4x6x96xbf16>
  %v5 = poot.reshape %v : tensor<1x2x6x96xbf16> -> tensor<1x2x1x6x96xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 2, 6, 96>} : tensor<1x2x1x6x96xbf16>
  %vr = poot.reshape %vb : tensor<1x2x2x6x96xbf16> -> tensor<1x4x6x96xbf16>
  %kt = poot.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x6x96xbf16>
  %s = poot.matmul %q, %kt : tensor<1x4x6x96xbf16>, tensor<1x4x96x6xbf16>
  %c = poot.constant dense<0.0833333358> : tensor<bf16>
  %ss = poot.mul %s, %c : tensor<1x4x6x6xbf16>, tensor<bf16>
  %sm = poot.add %ss, %mask : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
  %x = poot.convert %sm : tensor<1x4x6x6xbf16> -> tensor<1x4x6x6xf32>
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %d = poot.sub %x, %mx : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %e = poot.exp %d : tensor<1x4x6x6xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x4x6x6xf32>
  %p = poot.div %e, %z : tensor<1x4x6x6xf32>, tensor<1x4x6x1xf32>
  %pb = poot.convert %p : tensor<1x4x6x6xf32> -> tensor<1x4x6x6xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x4x6x6xbf16>, tensor<1x4x6x96xbf16>
  return %o : tensor<1x4x6x96xbf16>
}
