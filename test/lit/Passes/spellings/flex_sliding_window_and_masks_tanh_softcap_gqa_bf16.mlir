// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan-int64 %{ poot-run %t.mlir --device=vulkan --device-from-host --check --ref=%s --quiet %}

// pytorch-labs/attention-gym attn_gym/masks/sliding_window.py
// (generate_sliding_window(3): and_masks(q_idx - kv_idx <= 3, causal))
// with attn_gym/mods/softcapping.py (generate_tanh_softcap(20):
// soft_cap * tanh(score / soft_cap)) through PyTorch's dense FlexAttention
// reference (torch/_higher_order_ops/flex_attention.py, math_attention):
// k and v repeat_interleaved over the query groups, q and k upcast to f32,
// scores * scale; and_masks starts from b.new_ones((), bool) and ands each
// mask_mod in; where(mask, score_mod(scores), -inf) (the softcap of the
// scaled scores, then the mask); torch._safe_softmax; .to(bf16) @ v. Key t
// is visible from row i iff 0 <= i - t <= 3: causal, window 4; each row
// keeps its own key, so the guard never fires. GQA 6/2, B = 1, L = 9,
// D = 16.

// CHECK-LABEL: func.func @flex_sliding_window_and_masks_tanh_softcap_gqa_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} {causal, n_rep = 3 : i64, scale = 2.500000e-01 : f64, softcap = 2.000000e+01 : f64, window = 4 : i64}
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 3, scale 0.25, softcap 20, causal, window 4
func.func @flex_sliding_window_and_masks_tanh_softcap_gqa_bf16(
    %q: tensor<1x6x9x16xbf16>, %k: tensor<1x2x9x16xbf16>, %v: tensor<1x2x9x16xbf16>) -> tensor<1x6x9x16xbf16> {
  %v5 = poot.reshape %v : tensor<1x2x9x16xbf16> -> tensor<1x2x1x9x16xbf16>
  %vb = poot.broadcast %v5 {shape = array<i64: 1, 2, 3, 9, 16>} : tensor<1x2x1x9x16xbf16>
  %vr = poot.reshape %vb : tensor<1x2x3x9x16xbf16> -> tensor<1x6x9x16xbf16>
  %k5 = poot.reshape %k : tensor<1x2x9x16xbf16> -> tensor<1x2x1x9x16xbf16>
  %kb = poot.broadcast %k5 {shape = array<i64: 1, 2, 3, 9, 16>} : tensor<1x2x1x9x16xbf16>
  %kr = poot.reshape %kb : tensor<1x2x3x9x16xbf16> -> tensor<1x6x9x16xbf16>
  %qf = poot.convert %q : tensor<1x6x9x16xbf16> -> tensor<1x6x9x16xf32>
  %kf = poot.convert %kr : tensor<1x6x9x16xbf16> -> tensor<1x6x9x16xf32>
  %kt = poot.transpose %kf {perm = array<i64: 0, 1, 3, 2>} : tensor<1x6x9x16xf32>
  %s0 = poot.matmul %qf, %kt : tensor<1x6x9x16xf32>, tensor<1x6x16x9xf32>
  %scale = poot.constant dense<2.500000e-01> : tensor<f32>
  %s = poot.mul %s0, %scale : tensor<1x6x9x9xf32>, tensor<f32>
  // tanh_softcap score_mod
  %cap = poot.constant dense<2.000000e+01> : tensor<f32>
  %sc0 = poot.div %s, %cap : tensor<1x6x9x9xf32>, tensor<f32>
  %sc1 = poot.tanh %sc0 : tensor<1x6x9x9xf32>
  %sc = poot.mul %cap, %sc1 : tensor<f32>, tensor<1x6x9x9xf32>
  // and_masks(sliding_window, causal_mask), vmapped
  %m = poot.iota {dim = 2 : i64} : tensor<1x6x9x9xi64>
  %n = poot.iota {dim = 3 : i64} : tensor<1x6x9x9xi64>
  %true = poot.constant dense<true> : tensor<i1>
  %diff = poot.sub %m, %n : tensor<1x6x9x9xi64>, tensor<1x6x9x9xi64>
  %w = poot.constant dense<3> : tensor<i64>
  %sw = poot.compare le, %diff, %w : tensor<1x6x9x9xi64>, tensor<i64>
  %r1 = poot.and %true, %sw : tensor<i1>, tensor<1x6x9x9xi1>
  %causal = poot.compare ge, %m, %n : tensor<1x6x9x9xi64>, tensor<1x6x9x9xi64>
  %mask = poot.and %r1, %causal : tensor<1x6x9x9xi1>, tensor<1x6x9x9xi1>
  %ninf = poot.constant dense<0xFF800000> : tensor<f32>
  %x = poot.select %mask, %sc, %ninf : tensor<1x6x9x9xi1>, tensor<1x6x9x9xf32>, tensor<f32>
  // torch._safe_softmax
  %mx = poot.reduce_max %x {axis = 3 : i64, keepdim} : tensor<1x6x9x9xf32>
  %d = poot.sub %x, %mx : tensor<1x6x9x9xf32>, tensor<1x6x9x1xf32>
  %e = poot.exp %d : tensor<1x6x9x9xf32>
  %z = poot.reduce_sum %e {axis = 3 : i64, keepdim} : tensor<1x6x9x9xf32>
  %p = poot.div %e, %z : tensor<1x6x9x9xf32>, tensor<1x6x9x1xf32>
  %masked = poot.compare eq, %x, %ninf : tensor<1x6x9x9xf32>, tensor<f32>
  %mf = poot.convert %masked : tensor<1x6x9x9xi1> -> tensor<1x6x9x9xf32>
  %all = poot.reduce_min %mf {axis = 3 : i64, keepdim} : tensor<1x6x9x9xf32>
  %one = poot.constant dense<1.0> : tensor<f32>
  %rows = poot.compare eq, %all, %one : tensor<1x6x9x1xf32>, tensor<f32>
  %zero = poot.constant dense<0.0> : tensor<f32>
  %ps = poot.select %rows, %zero, %p : tensor<1x6x9x1xi1>, tensor<f32>, tensor<1x6x9x9xf32>
  %pb = poot.convert %ps : tensor<1x6x9x9xf32> -> tensor<1x6x9x9xbf16>
  %o = poot.matmul %pb, %vr : tensor<1x6x9x9xbf16>, tensor<1x6x9x16xbf16>
  return %o : tensor<1x6x9x16xbf16>
}
