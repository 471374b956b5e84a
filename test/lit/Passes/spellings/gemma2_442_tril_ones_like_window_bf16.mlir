// RUN: poot-opt %s --poot-canonicalize --poot-attention | FileCheck %s
// RUN: poot-opt %s --poot-canonicalize --poot-attention=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: poot-opt %s --poot-canonicalize --poot-attention -o %t.mlir && poot-run %t.mlir --check --ref=%s --quiet
// RUN: %if vulkan %{ poot-run %t.mlir --device=vulkan --check --ref=%s --quiet %}

// HF transformers 4.42 Gemma2 (eager) on a sliding layer, prefill:
// _update_causal_mask gives triu(full(finfo(bf16).min), 1) (a traced
// constant) times (arange(T) > cache_position.reshape(-1, 1)); the decoder
// layer then takes sliding_window_mask = torch.tril(ones_like(mask, bool),
// diagonal=-sliding_window) and torch.where(sliding_window_mask, min,
// mask); Gemma2Attention: q @ k^T * scaling, softcap tanh(x / 50) * 50,
// + mask, softmax in f32 .to(bf16), @ v with repeat_kv.
// GQA 4/2, D = 96, L = 6, sliding_window = 3.

// CHECK-LABEL: func.func @gemma2_442_tril_ones_like_window_bf16
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// CHECK: poot.attention
// CHECK-SAME: causal
// CHECK-SAME: softcap
// CHECK-SAME: window = 3 : i64
// CHECK-NOT: poot.{{exp|reduce_max|reduce_sum}}
// EXPLAIN: remark: attention fused: dense attention, n_rep 2, scale 0.0{{[0-9]*}}, softcap 50, causal, window 3{{$}}
func.func @gemma2_442_tril_ones_like_window_bf16(%q: tensor<1x4x6x96xbf16>, %k: tensor<1x2x6x96xbf16>,
                                                 %v: tensor<1x2x6x96xbf16>) -> tensor<1x4x6x96xbf16> {
  %triu = poot.constant dense<[[0x0000, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0xFF7F, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0x0000, 0xFF7F, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0x0000, 0x0000, 0xFF7F, 0xFF7F], [0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0xFF7F], [0x0000, 0x0000, 0x0000, 0x0000, 0x0000, 0x0000]]> : tensor<6x6xbf16>
  %cp = poot.constant dense<[0, 1, 2, 3, 4, 5]> : tensor<6xi64>
  %cpc = poot.reshape %cp : tensor<6xi64> -> tensor<6x1xi64>
  %ar = poot.iota {dim = 0 : i64} : tensor<6xi64>
  %arr = poot.reshape %ar : tensor<6xi64> -> tensor<1x6xi64>
  %gt = poot.compare gt, %arr, %cpc : tensor<1x6xi64>, tensor<6x1xi64>
  %gtf = poot.convert %gt : tensor<6x6xi1> -> tensor<6x6xbf16>
  %cm = poot.mul %triu, %gtf : tensor<6x6xbf16>, tensor<6x6xbf16>
  %cm4 = poot.reshape %cm : tensor<6x6xbf16> -> tensor<1x1x6x6xbf16>
  %swt = poot.constant dense<[[false, false, false, false, false, false], [false, false, false, false, false, false], [false, false, false, false, false, false], [true, false, false, false, false, false], [true, true, false, false, false, false], [true, true, true, false, false, false]]> : tensor<6x6xi1>
  %min = poot.constant dense<0xFF7F> : tensor<bf16>
  %mask = poot.select %swt, %min, %cm4 : tensor<6x6xi1>, tensor<bf16>, tensor<1x1x6x6xbf16>
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
  %cap = poot.constant dense<50.0> : tensor<bf16>
  %s1 = poot.div %ss, %cap : tensor<1x4x6x6xbf16>, tensor<bf16>
  %s2 = poot.tanh %s1 : tensor<1x4x6x6xbf16>
  %s3 = poot.mul %s2, %cap : tensor<1x4x6x6xbf16>, tensor<bf16>
  %sm = poot.add %s3, %mask : tensor<1x4x6x6xbf16>, tensor<1x1x6x6xbf16>
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
